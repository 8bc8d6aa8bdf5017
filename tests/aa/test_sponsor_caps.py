"""Draining the paymaster with more identities (issue 38 item 4): a budget per account alone lets
anyone sponsor without bound by signing in again. The project, the whole engine and each client
address have a day's budget too (`[smart_accounts.sponsor]`), decided and charged atomically
with the account's (aa/ledger.py); reaching one writes one log line and counts in the metric.

Each test drains across 20 identities (new smart accounts), the attacker's side named.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from modalcore.aa.ledger import SponsorLedger
from modalcore.aa.policy import DAY_MS, BudgetSpent, NotSponsored, Sponsor, SponsorPolicy, SponsorRequest
from modalcore.server.metrics import sponsor_lines

CHAIN = "eip155:31337"
T0 = 20_000 * DAY_MS + 3_600_000
COST = 10
IDENTITIES = [f"0x{n:040x}" for n in range(1, 21)]


def _request(account: str, *, address: str = "203.0.113.7", project: str = "demo") -> SponsorRequest:
    return SponsorRequest(project, CHAIN, "eth_sendTransaction", account, COST, address)


def _drain(ledger: SponsorLedger, policy: SponsorPolicy, *, addresses: bool = False, project: str = "demo",
           at: int = T0) -> list[object]:
    """Each of 20 identities asks for as many sponsored operations as it can (5 each)."""
    decisions: list[object] = []
    for n, account in enumerate(IDENTITIES):
        address = f"198.51.100.{n}" if addresses else "203.0.113.7"
        for _ in range(5):
            decisions.append(ledger.reserve(policy, _request(account, address=address, project=project), at)[0])
    return decisions


def _sponsored(decisions: list[object]) -> int:
    return sum(COST for d in decisions if isinstance(d, Sponsor))


def test_rule_one_client_address_cannot_drain_with_20_identities(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    policy = SponsorPolicy(projects=["demo"], chains=[CHAIN], budget_wei_per_day=50, address_budget_wei_per_day=120)
    ledger = SponsorLedger(tmp_path / "embedded.db")
    with caplog.at_level(logging.WARNING, logger="modalcore.aa.ledger"):
        decisions = _drain(ledger, policy)
    assert _sponsored(decisions) == 120  # not 20 × 50
    assert BudgetSpent(120, 120, "address") in decisions
    lines = [r.getMessage() for r in caplog.records if "sponsoring cap reached" in r.getMessage()]
    assert len(lines) == 1 and "address" in lines[0]  # one line, however many refusals
    # another visitor's address is not stopped by the attacker's
    assert ledger.reserve(policy, _request("0x" + "cc" * 20, address="192.0.2.1"), T0)[0] == Sponsor(COST)


def test_rule_20_identities_from_20_addresses_stop_at_the_project_budget(tmp_path: Path) -> None:
    policy = SponsorPolicy(projects=["demo", "other"], chains=[CHAIN], budget_wei_per_day=50,
                           address_budget_wei_per_day=50, project_budget_wei_per_day=300)
    ledger = SponsorLedger(tmp_path / "embedded.db")
    decisions = _drain(ledger, policy, addresses=True)
    assert _sponsored(decisions) == 300
    assert BudgetSpent(300, 300, "project") in decisions
    # another project still has its own budget
    assert ledger.reserve(policy, _request("0x" + "cc" * 20, address="192.0.2.1", project="other"), T0)[0] == Sponsor(COST)
    # a new UTC day, a new budget
    assert ledger.reserve(policy, _request(IDENTITIES[0], address="192.0.2.1"), T0 + DAY_MS)[0] == Sponsor(COST)


def test_rule_the_engine_budget_bounds_every_project_together(tmp_path: Path) -> None:
    policy = SponsorPolicy(projects=["a", "b"], chains=[CHAIN], engine_budget_wei_per_day=400)
    ledger = SponsorLedger(tmp_path / "embedded.db")
    spent = _sponsored(_drain(ledger, policy, addresses=True, project="a"))
    spent += _sponsored(_drain(ledger, policy, addresses=True, project="b"))
    assert spent == 400
    assert isinstance(ledger.reserve(policy, _request("0x" + "ee" * 20, project="b"), T0)[0], BudgetSpent)


def test_rule_a_refund_gives_back_every_scope_it_was_charged_to(tmp_path: Path) -> None:
    policy = SponsorPolicy(projects=["demo"], chains=[CHAIN], address_budget_wei_per_day=COST,
                           project_budget_wei_per_day=COST, engine_budget_wei_per_day=COST)
    ledger = SponsorLedger(tmp_path / "embedded.db")
    decision, charge = ledger.reserve(policy, _request(IDENTITIES[0]), T0)
    assert decision == Sponsor(COST) and charge is not None
    assert isinstance(ledger.reserve(policy, _request(IDENTITIES[1]), T0)[0], BudgetSpent)
    ledger.refund(charge)  # the bundler refused the operation: nothing was sponsored
    assert ledger.reserve(policy, _request(IDENTITIES[1]), T0)[0] == Sponsor(COST)


def test_rule_account_pays_past_a_cap_and_the_metric_counts_each_refusal(tmp_path: Path) -> None:
    policy = SponsorPolicy(projects=["demo"], chains=[CHAIN], project_budget_wei_per_day=30,
                           when_budget_spent="account_pays")
    ledger = SponsorLedger(tmp_path / "embedded.db")
    decisions = _drain(ledger, policy, addresses=True)
    assert _sponsored(decisions) == 30
    assert decisions.count(NotSponsored("budget")) == 97
    assert ledger.cap_refusals() == {"project": 97}
    text = sponsor_lines(ledger)
    assert 'modalcore_sponsor_caps_reached_total{cap="project"} 97' in text
    assert 'modalcore_sponsor_caps_reached_total{cap="address"} 0' in text
