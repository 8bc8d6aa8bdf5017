"""Draining the paymaster with more identities, end to end on the dev chain (issue 38 item 4): a
visitor signs in with one email after another from one client address; once the address's day
budget is spent, a new identity's sponsored send is refused (nothing sent), while a visitor
from another address is still sponsored. Real parts: Hardhat, the alto bundler, the
VerifyingPaymaster, the embedded wallet's SQLite ledger."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from modalcore.server.config import dev_networks, parse_config
from modalcore.slices.embedded import ApprovalDecided
from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.devmail import LocalSmtpServer

from .test_smart_account_chain import CENT, FUNDS, RECEIVER, _operations, _rpc, smart_accounts_section
from .world import EmailWorld, open_wallet

pytestmark = pytest.mark.chain
ATTACKER = "203.0.113.7"


def _visitor(aa: AaChains, wallet: Any, smtp: LocalSmtpServer, email: str, address: str,
             address_budget: int) -> EmailWorld:
    section = smart_accounts_section(aa, sponsored_projects=["test"])
    section["sponsor"]["address_budget_wei_per_day"] = address_budget
    config = parse_config({"networks": dev_networks(aa.chains.rpc_urls, aa.chains.deployment),
                           "smart_accounts": section})
    world = EmailWorld(wallet, smtp, config=config, known_networks=config.known_networks())
    world.client_address = address
    world.submit_email(email)
    world.type_code(world.code_for(email))
    world.settle_all()
    return world


def _send(aa: AaChains, world: EmailWorld) -> tuple[str, Any]:
    smart = world.h.model.accounts.get("eip155").address
    assert smart is not None
    _rpc(aa, "hardhat_setBalance", [smart, hex(FUNDS)])
    world.ask_wallet("eth_sendTransaction", [{"to": RECEIVER, "value": hex(CENT)}])
    request = world.h.model.embedded.request
    assert request is not None
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    [settled] = world.run_calls()
    return smart, settled


def test_rule_a_new_identity_from_a_spent_address_is_not_sponsored_another_address_is(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    wallet = open_wallet(tmp_path / "e.db", smtp)
    first = _visitor(aachains, wallet, smtp, "drain-1@example.com", ATTACKER, 10**30)
    smart, settled = _send(aachains, first)
    assert settled.ok, settled.error
    one_operation = wallet.sponsored.spent("eip155:31337", smart, first.h.now)
    assert one_operation  # the sponsorship was charged
    budget = one_operation + one_operation // 2  # room for one deploying send, not two
    second = _visitor(aachains, wallet, smtp, "drain-2@example.com", ATTACKER, budget)
    smart2, refused = _send(aachains, second)
    assert not refused.ok and "budget_spent" in refused.error
    assert _operations(aachains, smart2) == []  # nothing sent
    honest = _visitor(aachains, wallet, smtp, "honest@example.com", "192.0.2.1", budget)
    smart3, sponsored = _send(aachains, honest)
    assert sponsored.ok, sponsored.error
    assert len(_operations(aachains, smart3)) == 1
    assert wallet.sponsored.cap_refusals() == {"address": 1}
