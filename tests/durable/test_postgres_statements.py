"""What `/metrics` says of PostgreSQL (modalcore_database_statements_total, and the several-hosts
bench's round trips per intent): every statement the engine sends counts once, a transaction's
BEGIN and COMMIT too; the SQLite files report nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct
from psycopg.pq import Trace

from modalcore.aa.ledger import Charge, SponsorLedger
from modalcore.aa.policy import DAY_MS, SponsorPolicy, SponsorRequest, day_of
from modalcore.durable.db import Conflict
from modalcore.durable.postgres import PostgresDb
from modalcore.durable.sqlite import SqliteDb
from modalcore.embedded.budget import BudgetLimits, BudgetStore, MailBudget, Receipt
from modalcore.embedded.codes import EmailCodes
from modalcore.embedded.codestore import CodeStore
from modalcore.embedded.devicekeys import DeviceKeys
from modalcore.embedded.keys import KeyVault
from modalcore.embedded.masterkey import MasterKey
from modalcore.embedded.service import EmbeddedWallet, check_code, send_code
from modalcore.server.metrics import database_lines
from modalcore.rules.names import registration_message
from modalcore.services.backend.name_registry import NameRegistry
from modalcore.siwx.backend.store import DurableSiwxStore, NonceStatus
from modalcore_testing.device import DeviceKey

NOW = 1_700_000_000_000


def _traced(db: PostgresDb, folder: Path) -> Path:
    """libpq's trace of the pool's one connection (`max_size=1`): every message both ways."""
    trace = folder / "libpq.trace"
    handle = os.open(trace, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with db._pool.connection() as conn:
        conn.pgconn.trace(handle)
        conn.pgconn.set_trace_flags(Trace.SUPPRESS_TIMESTAMPS | Trace.REGRESS_MODE)
    return trace


def _round_trips(db: PostgresDb, trace: Path) -> int:
    """The server's ReadyForQuery answers in the trace (its end written out): one per statement
    sent alone, one per pipeline sync."""
    with db._pool.connection() as conn:
        conn.pgconn.untrace()
    return sum(1 for line in trace.read_text().splitlines() if line.split("\t")[:1] == ["B"]
               and "\tReadyForQuery" in line)


def test_rule_the_counter_counts_the_round_trips_libpq_makes(pg_url: str, tmp_path: Path) -> None:
    """`statements` (modalcore_database_statements_total) is what reached the server: a statement
    alone is one round trip, a transaction's pipeline (BEGIN, the locks, what it queued, up to
    its read; then its writes and COMMIT) one per send, the lending check none (the trace shows
    every message; the server answers each round trip with one ReadyForQuery)."""
    db = PostgresDb(pg_url, max_size=1)
    try:
        trace = _traced(db, tmp_path)
        before = db.statements
        db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)")
        db.executemany("INSERT INTO t VALUES (?, ?)", [("a", 1), ("b", 2)])  # one pipeline
        with db.transaction(locks=["budget:x", "budget:y"]) as tx:  # BEGIN, the locks and the read; UPDATE, COMMIT
            assert tx.execute("SELECT v FROM t WHERE k = ?", ("a",)).rows == [(1,)]
            tx.queue("UPDATE t SET v = 3 WHERE k = ?", ("a",))
        with pytest.raises(Conflict), db.transaction(locks=["budget:x"]) as tx:  # one send; ROLLBACK
            tx.execute("INSERT INTO t VALUES (?, ?)", ("a", 9))
        assert db.execute("SELECT v FROM t WHERE k = ?", ("a",)).rows == [(3,)]
        assert db.statements - before == 1 + 1 + 2 + 2 + 1 == _round_trips(db, trace)
        assert database_lines(db).splitlines()[-1] == f"modalcore_database_statements_total {db.statements}"
    finally:
        db.close()


def test_rule_the_sqlite_files_report_no_database_round_trips(tmp_path: Path) -> None:
    db = SqliteDb(tmp_path / "embedded.db")
    try:
        db.execute("CREATE TABLE t (k TEXT)")
        assert database_lines(db) == ""
    finally:
        db.close()


async def test_rule_a_sign_in_nonce_costs_at_most_two_round_trips_to_issue_and_one_to_consume(db_url: str) -> None:
    """An intent touching a durable record makes at most 2 PostgreSQL round trips (issue 42 item
    4): a SIWX nonce is issued when the sign-in message is drawn (the INSERT, then one DELETE of
    expired nonces and of the session's open ones past the bound; it was a 6-statement
    transaction under an advisory lock) and consumed in one conditional UPDATE."""
    db = PostgresDb(db_url)
    try:
        store = DurableSiwxStore(db)
        before = db.statements
        nonce = await store.issue_nonce("session-1", 1_000)
        issued = db.statements - before
        before = db.statements
        assert await store.consume_nonce(nonce, "session-1", 2_000) == NonceStatus.OK
        assert (issued, db.statements - before) == (2, 1)
    finally:
        db.close()


def test_rule_a_mail_budget_takes_two_round_trips_whatever_its_number_of_keys(db_url: str) -> None:
    """A budget's take alone spends from every budget of the request (address, session, email,
    project, engine...) in one transaction: BEGIN, every key's lock and the read in one
    pipeline; the write and COMMIT in another. It was one lock, one read and one write per key
    (27 round trips for the whole code request before, then 5 in separate statements)."""
    db = PostgresDb(db_url)
    try:
        budget = MailBudget(BudgetStore(db), BudgetLimits())
        before = db.statements
        taken = budget.take_code(1_000, address="203.0.113.7", session="s1", email="ann@example.com",
                                 project="demo")
        assert isinstance(taken, Receipt) and len(taken.rows) == 6  # taken, not refused
        assert db.statements - before == 2
    finally:
        db.close()


class _Mailbox:
    def __init__(self) -> None:
        self.codes: list[str] = []

    async def send_code(self, to: str, code: str) -> None:
        self.codes.append(code)


async def test_rule_each_step_of_an_email_sign_in_costs_at_most_two_round_trips(db_url: str) -> None:
    """The goal for an intent touching a durable record: the code asked (its row and every mail
    budget: one transaction, read then written) and the code typed (the typist's guesses, the
    row, the email's key and the frame's device key: one transaction) are two round trips each,
    a wrong code too. They were 11-13 and 21 (one transaction per store, BEGIN and COMMIT apart),
    and would be more counted honestly (a BEGIN of its own before every statement)."""
    db = PostgresDb(db_url)
    try:
        mailbox = _Mailbox()
        wallet = EmbeddedWallet(codes=EmailCodes(CodeStore(db), b"k" * 32), mailer=mailbox,
                                vault=KeyVault(db, MasterKey(bytes(32))), budget=MailBudget(BudgetStore(db)),
                                devices=DeviceKeys(db))
        counts: list[int] = []
        answers: list[object] = []
        for now, email in ((NOW, "ann@example.com"), (NOW + 60_000, "ann@example.com")):  # a new key, then known
            before = db.statements
            answers.append(await send_code(wallet, email, now, address="203.0.113.7", session="s1", project="demo"))
            counts.append(db.statements - before)
            wrong = "000000" if mailbox.codes[-1] != "000000" else "111111"
            for typed in (wrong, mailbox.codes[-1]):
                before = db.statements
                answers.append(check_code(wallet, email, typed, DeviceKey().spki, now + 1, session="s1",
                                          address="203.0.113.7")["verdict"])
                counts.append(db.statements - before)
        assert answers == [{"status": "sent"}, "wrong", "accepted"] * 2
        assert counts == [2, 2, 2] * 2
        assert db.execute("SELECT count(*) FROM embedded_keys").rows == [(1,)]
        assert db.execute("SELECT count(*) FROM device_keys").rows == [(2,)]
    finally:
        db.close()


def test_rule_a_sponsoring_charge_and_its_refund_take_two_round_trips_each(db_url: str) -> None:
    """The sponsoring ledger decides and charges every scope (account, address, project, engine)
    in one transaction: BEGIN, the scopes' locks and one read of them all; the charges, the day's
    sweep and COMMIT. A refusal (the day spent) and a refund are two as well. (It was a read per
    scope, and a read and a write per scope again to charge: 16 round trips.)"""
    policy = SponsorPolicy(projects=["demo"], chains=["eip155:31337"], budget_wei_per_day=100)
    day = 20_000 * DAY_MS + 3_600_000
    db = PostgresDb(db_url)
    try:
        ledger = SponsorLedger(db)
        counts: list[int] = []
        answers: list[object] = []
        for cost in (60, 60):  # sponsored, then over the day's budget
            before = db.statements
            decision, charge = ledger.reserve(policy, SponsorRequest("demo", "eip155:31337", "eth_sendTransaction",
                                                                     "0x" + "a" * 40, cost), day)
            counts.append(db.statements - before)
            answers.append(type(decision).__name__)
        assert charge is None and ledger.spent("eip155:31337", "0x" + "a" * 40, day) == 60
        before = db.statements
        ledger.refund(Charge("eip155:31337", "0x" + "a" * 40, day_of(day), 60, "", "demo"))
        counts.append(db.statements - before)
        assert answers == ["Sponsor", "BudgetSpent"] and counts == [2, 2, 2]
        assert ledger.spent("eip155:31337", "0x" + "a" * 40, day) == 0
        assert ledger.cap_refusals() == {"account": 1}
    finally:
        db.close()


async def test_rule_a_name_registration_takes_one_round_trip(db_url: str) -> None:
    """The name's INSERT alone (its uniqueness is the table's: a name taken on one host is taken
    on all)."""
    owner = Account.from_key("0x" + "11" * 32)
    message = registration_message("satoshi.reown.id", NOW)
    signature = "0x" + bytes(Account.sign_message(encode_defunct(text=message), owner.key).signature).hex()
    db = PostgresDb(db_url)
    try:
        registry = NameRegistry(db, "reown.id")
        before = db.statements
        await registry.register("satoshi", owner.address, message, signature, NOW)
        assert db.statements - before == 1
    finally:
        db.close()
