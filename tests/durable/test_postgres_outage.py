"""PostgreSQL stopped and started again (issue 42): while it is down a store call fails with a
typed `DatabaseError` naming no password, within the pool's bound, the sponsoring ledger
sponsors nothing and /healthz's check names the reason; once it is back the same open database works again (the pool checks each
connection before lending it), and what was committed before the stop is still there.

A call blocks its worker's event loop: once one found the server unreachable, the next ones wait
OUTAGE_WAIT_S for a connection, not CONNECT_TIMEOUT_S, until one gets a connection."""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager

import pytest

from modalcore.aa.ledger import SponsorLedger
from modalcore.aa.policy import DAY_MS, LedgerUnavailable, Sponsor, SponsorPolicy, SponsorRequest
from modalcore.durable.db import DatabaseError
from modalcore.durable.postgres import CONNECT_TIMEOUT_S, OUTAGE_WAIT_S, RECONNECT_S, PostgresDb
from modalcore.durable.schema import upgrade
from modalcore.embedded.budget import BudgetStore, Receipt, Rule
from modalcore.server.health import database_down
from modalcore_testing.postgres import PostgresProcess

CHAIN = "eip155:31337"
T0 = 20_000 * DAY_MS
POLICY = SponsorPolicy(projects=["demo"], chains=[CHAIN], budget_wei_per_day=100)
REQUEST = SponsorRequest("demo", CHAIN, "eth_sendTransaction", "0x" + "a" * 40, 10)


def test_rule_a_database_back_after_an_outage_is_used_again_and_kept_what_it_acknowledged(
        cluster: PostgresProcess) -> None:
    """A cluster of this module's own (tests/durable/conftest.py): this test stops it."""
    server = cluster
    url = server.create_database("outage")
    db = PostgresDb(url)
    try:
        upgrade(db)
        budget, ledger = BudgetStore(db), SponsorLedger(db)
        assert isinstance(budget.take([Rule("email:a", 5, 60_000)], 1_000), Receipt)
        assert ledger.reserve(POLICY, REQUEST, T0)[0] == Sponsor(10)
        server.stop()
        with pytest.raises(DatabaseError) as down:
            budget.take([Rule("email:a", 5, 60_000)], 1_001)
        assert "postgres" in str(down.value)
        assert ledger.reserve(POLICY, REQUEST, T0) == (LedgerUnavailable(), None)  # nothing sponsored
        reason = asyncio.run(database_down(db))  # what /healthz answers with its 503
        assert reason is not None and reason.startswith("postgres: ") and reason == db.failing
        server.start()
        assert _back(db) and db.failing is None  # asked again: back
        assert isinstance(budget.take([Rule("email:a", 5, 60_000)], 1_002), Receipt)
        assert ledger.spent(CHAIN, REQUEST.account, T0) == 10  # acknowledged before the stop
        assert len(db.execute("SELECT rowid FROM mail_budget").fetchall()) == 2
    finally:
        db.close()


def _back(db: PostgresDb) -> bool:
    """/healthz's check asked again until the database answers: at once, or once the pool's
    reconnection, waiting out one backoff step, has connected (each ask waits OUTAGE_WAIT_S)."""
    for _ in range(int(4 * RECONNECT_S / OUTAGE_WAIT_S)):
        if asyncio.run(database_down(db)) is None:
            return True
    return False


def test_rule_once_a_call_found_the_server_unreachable_the_next_wait_the_outage_bound_not_the_connect_timeout(
        cluster: PostgresProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    """The wait each call asks the pool for (psycopg_pool's `connection(timeout=)`), recorded:
    CONNECT_TIMEOUT_S while the server answers and for the call that finds it gone, then
    OUTAGE_WAIT_S for every next call, and CONNECT_TIMEOUT_S again once a call got a connection."""
    server = cluster
    db = PostgresDb(server.create_database("waits"))
    asked: list[float | None] = []
    lend = db._pool.connection

    def connection(timeout: float | None = None) -> AbstractContextManager[object]:
        asked.append(timeout)
        return lend(timeout=timeout)

    monkeypatch.setattr(db._pool, "connection", connection)
    try:
        db.execute("SELECT 1")
        assert asked == [CONNECT_TIMEOUT_S] and db.wait_s == CONNECT_TIMEOUT_S
        server.stop()
        for _ in range(3):
            with pytest.raises(DatabaseError):
                db.execute("SELECT 1")
        assert asked[1:] == [CONNECT_TIMEOUT_S, OUTAGE_WAIT_S, OUTAGE_WAIT_S]
        assert db.failing is not None and f"within {OUTAGE_WAIT_S:g} s" in db.failing  # the wait it had
        server.start()
        assert _back(db)
        asked.clear()
        db.execute("SELECT 1")
        assert asked == [CONNECT_TIMEOUT_S] and db.wait_s == CONNECT_TIMEOUT_S
    finally:
        db.close()
