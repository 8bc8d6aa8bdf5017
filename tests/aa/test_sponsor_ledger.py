"""The sponsoring budget's count (modalcore/aa/ledger.py) lives in the embedded wallet's SQLite
file: a restart keeps the day's spending, the workers of a host share it and never both spend
the last of it, a bundler's refusal gives the charge back, and a failed store never sponsors:
it refuses, or lets the account pay when the operator says so."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import stat
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_account import Account
from eth_account.signers.local import LocalAccount

from modalcore.aa.bundler import BundlerError
from modalcore.aa.ledger import Charge, SponsorLedger
from modalcore.aa.policy import DAY_MS, BudgetSpent, LedgerUnavailable, NotSponsored, Sponsor, SponsorPolicy, SponsorRequest
from modalcore.aa.send import AaChain, Sponsorship, UserOpRefused, send_user_operation
from modalcore.aa.userop import ENTRY_POINT_V07, Call
from modalcore.embedded.masterkey import MasterKey
from modalcore.embedded.setup import open_wallet, section_of

CHAIN = "eip155:31337"
ACCOUNT = "0x00000000000000000000000000000000000000aA"
T0 = 20_000 * DAY_MS + 3_600_000
POLICY = SponsorPolicy(projects=["demo"], chains=[CHAIN], budget_wei_per_day=100)


def _request(cost: int, account: str = ACCOUNT, project: str = "demo") -> SponsorRequest:
    return SponsorRequest(project, CHAIN, "eth_sendTransaction", account, cost)


def test_a_restart_keeps_the_days_spending(tmp_path: Path) -> None:
    db = tmp_path / "embedded.db"
    before = SponsorLedger(db)
    assert before.reserve(POLICY, _request(60), T0) == (Sponsor(60), Charge(CHAIN, ACCOUNT.lower(), T0 // DAY_MS, 60,
                                                                   project="demo"))
    before.close()
    after = SponsorLedger(db)
    assert after.spent(CHAIN, ACCOUNT.upper().replace("0X", "0x"), T0 + 1) == 60
    assert after.reserve(POLICY, _request(41), T0 + 2) == (BudgetSpent(60, 100), None)
    assert after.reserve(POLICY, _request(40), T0 + 3)[0] == Sponsor(40)
    assert after.spent(CHAIN, ACCOUNT, T0 + DAY_MS) == 0  # a new UTC day, a new budget
    assert stat.S_IMODE(db.stat().st_mode) == 0o600


def test_the_count_is_per_chain_account_and_day_and_past_days_are_dropped(tmp_path: Path) -> None:
    ledger = SponsorLedger(tmp_path / "embedded.db")
    other = "0x00000000000000000000000000000000000000bB"
    ledger.reserve(POLICY, _request(70), T0)
    ledger.reserve(POLICY, _request(70, other), T0)
    assert ledger.spent("eip155:31338", ACCOUNT, T0) == 0
    assert ledger.reserve(POLICY, _request(70), T0 + DAY_MS)[0] == Sponsor(70)
    rows = sqlite3.connect(tmp_path / "embedded.db").execute("SELECT DISTINCT day FROM sponsored_wei").fetchall()
    assert rows == [(T0 // DAY_MS + 1,)]


def test_a_refund_gives_the_charge_back(tmp_path: Path) -> None:
    ledger = SponsorLedger(tmp_path / "embedded.db")
    _, charge = ledger.reserve(POLICY, _request(90), T0)
    assert charge is not None
    ledger.refund(charge)
    assert ledger.spent(CHAIN, ACCOUNT, T0) == 0
    assert ledger.reserve(POLICY, _request(100), T0)[0] == Sponsor(100)


def test_amounts_past_sqlites_integers_are_counted_exactly(tmp_path: Path) -> None:
    ledger = SponsorLedger(tmp_path / "embedded.db")
    huge = SponsorPolicy(projects=["demo"], chains=[CHAIN], budget_wei_per_day=10**30)
    ledger.reserve(huge, _request(10**29), T0)
    ledger.reserve(huge, _request(10**29 + 1), T0)
    assert ledger.spent(CHAIN, ACCOUNT, T0) == 2 * 10**29 + 1


def _worker(db: str, barrier: Barrier, account: str, answers: Any) -> None:
    ledger = SponsorLedger(db)
    barrier.wait()
    decision, _ = ledger.reserve(POLICY, _request(30, account), T0)
    answers.put(type(decision).__name__)


def test_two_workers_racing_for_the_last_of_a_budget_never_both_win(tmp_path: Path) -> None:
    """Two processes on one file (serve --workers 2), each asking for the budget's last 30 wei
    at once, for several accounts: exactly one sponsorship each time."""
    db = str(tmp_path / "embedded.db")
    setup = SponsorLedger(db)
    accounts = [f"0x{n:040x}" for n in range(1, 7)]
    for account in accounts:
        setup.reserve(POLICY, _request(70, account), T0)
    context = multiprocessing.get_context("fork")
    for account in accounts:
        barrier, answers = context.Barrier(2), context.Queue()
        workers = [context.Process(target=_worker, args=(db, barrier, account, answers)) for _ in range(2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(30)
        assert sorted(answers.get(timeout=5) for _ in workers) == ["BudgetSpent", "Sponsor"]
        assert setup.spent(CHAIN, account, T0) == 100


def _broken(tmp_path: Path) -> SponsorLedger:
    ledger = SponsorLedger(tmp_path / "embedded.db")
    with sqlite3.connect(tmp_path / "embedded.db") as other:  # the store fails under it
        other.execute("DROP TABLE sponsored_wei")
    return ledger


def test_a_failed_store_never_sponsors_it_refuses_or_lets_the_account_pay(tmp_path: Path) -> None:
    ledger = _broken(tmp_path)
    assert ledger.spent(CHAIN, ACCOUNT, T0) is None
    assert ledger.reserve(POLICY, _request(1), T0) == (LedgerUnavailable(), None)
    assert ledger.preview(POLICY, _request(0), T0) == LedgerUnavailable()
    paying = POLICY.model_copy(update={"when_budget_spent": "account_pays"})
    assert ledger.reserve(paying, _request(1), T0) == (NotSponsored("ledger"), None)
    # outside the policy the store has no say
    assert ledger.reserve(POLICY, _request(1, project="other"), T0) == (NotSponsored("project"), None)
    unlimited = POLICY.model_copy(update={"budget_wei_per_day": 0})
    assert ledger.reserve(unlimited, _request(1), T0) == (LedgerUnavailable(), None)


class _FakeChain:
    """A chain and a bundler that estimate gas and then refuse (or accept) the operation."""

    def __init__(self, refuse: bool) -> None:
        self.refuse = refuse
        self.sent: list[dict[str, Any]] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if isinstance(body, list):  # the chain's batch: code, nonce, block, tip
            answers = {"eth_getCode": "0x", "eth_call": "0x" + "00" * 32,
                       "eth_getBlockByNumber": {"baseFeePerGas": "0x1", "timestamp": "0x10"},
                       "eth_maxPriorityFeePerGas": "0x1"}
            return httpx.Response(200, json=[{"jsonrpc": "2.0", "id": c["id"], "result": answers[c["method"]]} for c in body])
        if body["method"] == "eth_estimateUserOperationGas":
            gas = {"preVerificationGas": "0x10", "verificationGasLimit": "0x10", "callGasLimit": "0x10",
                   "paymasterVerificationGasLimit": "0x10", "paymasterPostOpGasLimit": "0x10"}
            return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": gas})
        self.sent.append(body)
        if self.refuse:
            return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"],
                                             "error": {"code": -32500, "message": "AA33 reverted"}})
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": "0x" + "ab" * 32})


def _fake_aa_chain() -> AaChain:
    return AaChain(CHAIN, "http://chain.test", "http://bundler.test", ENTRY_POINT_V07,
                   "0x" + "11" * 20, "0x" + "22" * 20, Account.create())


async def _send(ledger: SponsorLedger, policy: SponsorPolicy, owner: LocalAccount, refuse: bool) -> tuple[_FakeChain, str]:
    fake = _FakeChain(refuse)
    async with httpx.AsyncClient(transport=httpx.MockTransport(fake.handle)) as http:
        sent = await send_user_operation(http, _fake_aa_chain(), owner, [Call("0x" + "33" * 20, 1)],
                                         sponsorship=Sponsorship(policy, ledger, "demo", "eth_sendTransaction", T0))
    return fake, sent.sender


async def test_a_bundlers_refusal_gives_the_charge_back(tmp_path: Path) -> None:
    ledger = SponsorLedger(tmp_path / "embedded.db")
    roomy = POLICY.model_copy(update={"budget_wei_per_day": 10**18})
    owner: LocalAccount = Account.create()
    fake, sender = await _send(ledger, roomy, owner, refuse=False)
    charged = ledger.spent(CHAIN, sender, T0)
    assert len(fake.sent) == 1 and charged
    with pytest.raises(BundlerError):
        await _send(ledger, roomy, owner, refuse=True)
    assert ledger.spent(CHAIN, sender, T0) == charged


async def test_a_failed_store_sends_nothing_when_the_operator_refuses(tmp_path: Path) -> None:
    fake_refused = _FakeChain(refuse=False)
    ledger = _broken(tmp_path)
    async with httpx.AsyncClient(transport=httpx.MockTransport(fake_refused.handle)) as http:
        with pytest.raises(UserOpRefused) as caught:
            await send_user_operation(http, _fake_aa_chain(), Account.create(), [Call("0x" + "33" * 20, 1)],
                                      sponsorship=Sponsorship(POLICY, ledger, "demo", "eth_sendTransaction", T0))
    assert (caught.value.reason, caught.value.kind) == ("ledger_unavailable", "not_sent")
    assert fake_refused.sent == []


async def test_a_failed_store_lets_the_account_pay_when_the_operator_says_so(tmp_path: Path) -> None:
    paying = POLICY.model_copy(update={"when_budget_spent": "account_pays"})
    fake = _FakeChain(refuse=False)
    async with httpx.AsyncClient(transport=httpx.MockTransport(fake.handle)) as http:
        sent = await send_user_operation(http, _fake_aa_chain(), Account.create(), [Call("0x" + "33" * 20, 1)],
                                         sponsorship=Sponsorship(paying, _broken(tmp_path), "demo",
                                                                 "eth_sendTransaction", T0))
    assert (sent.sponsored, sent.not_sponsored) == (False, "ledger")
    assert fake.sent[0]["params"][0].get("paymaster") in (None, "0x")


def test_the_engines_wallet_keeps_the_ledger_in_its_embedded_db(tmp_path: Path) -> None:
    """open_wallet (each worker, each start) counts in `[embedded] db`: what one spent, the next sees."""
    key = tmp_path / "master.key"
    key.write_text(MasterKey.generate().hex())
    section = section_of({"embedded": {"db": str(tmp_path / "embedded.db"), "master_key_file": str(key),
                                       "smtp": {"host": "127.0.0.1", "port": 25, "sender": "w@modal.test"}}})
    first, second = (open_wallet(section, Path, b"s" * 32) for _ in range(2))
    assert first is not None and second is not None
    first.sponsored.reserve(POLICY, _request(60), T0)
    assert second.sponsored.spent(CHAIN, ACCOUNT, T0) == 60
    assert second.sponsored.reserve(POLICY, _request(41), T0) == (BudgetSpent(60, 100), None)
