"""PostgreSQL stopped and started again (issue 42): while it is down a store call fails with a
typed `DatabaseError` naming no password, within the pool's bound, the sponsoring ledger
sponsors nothing and /healthz's check names the reason; once it is back the same open database works again (the pool checks each
connection before lending it), and what was committed before the stop is still there.

A call blocks its worker's event loop: once one found the server unreachable, the next ones fail
as soon as the server is seen to accept no connection, without waiting on the pool."""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager

import pytest

from modalcore.aa.ledger import SponsorLedger
from modalcore.aa.policy import DAY_MS, LedgerUnavailable, Sponsor, SponsorPolicy, SponsorRequest
from modalcore.durable.db import DatabaseError
from modalcore.durable.postgres import CONNECT_TIMEOUT_S, PostgresDb
from modalcore.durable.reachable import Endpoint, endpoints
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
        assert asyncio.run(database_down(db)) is None and db.failing is None  # asked again: back
        assert isinstance(budget.take([Rule("email:a", 5, 60_000)], 1_002), Receipt)
        assert ledger.spent(CHAIN, REQUEST.account, T0) == 10  # acknowledged before the stop
        assert len(db.execute("SELECT rowid FROM mail_budget").fetchall()) == 2
    finally:
        db.close()


def test_rule_once_a_call_found_the_server_unreachable_the_next_fail_without_waiting_on_the_pool(
        cluster: PostgresProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    """The waits asked of the pool (psycopg_pool's `connection(timeout=)`), recorded: while the
    server is stopped only the call that finds it gone waits (CONNECT_TIMEOUT_S); the next ones
    are refused, typed, without asking the pool; once the server is back the next call waits on
    the pool as usual and gets its connection."""
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
        assert asked == [CONNECT_TIMEOUT_S] and not db.still_down()
        server.stop()
        with pytest.raises(DatabaseError) as first:
            db.execute("SELECT 1")
        for _ in range(3):
            with pytest.raises(DatabaseError) as later:
                db.execute("SELECT 1")
            assert str(later.value) == str(first.value) == db.failing
        assert asked == [CONNECT_TIMEOUT_S] * 2 and db.still_down()
        server.start()
        assert not db.still_down()
        assert db.execute("SELECT 1").rows == [(1,)] and db.failing is None
        assert asked == [CONNECT_TIMEOUT_S] * 3
    finally:
        db.close()


@pytest.mark.parametrize(("url", "expected"), [
    ("postgresql://u:p@127.0.0.1:6543/db", (Endpoint("127.0.0.1", 6543),)),
    ("postgresql://[::1]/db", (Endpoint("::1", 5432),)),
    ("postgresql://db1,db2:5433/m?target_session_attrs=read-write", (Endpoint("db1", 5432), Endpoint("db2", 5433))),
    ("postgresql:///db?host=/run/postgresql&port=5433", (Endpoint("/run/postgresql", 5433),)),
    ("postgresql:///db", None),  # libpq's defaults or PGHOST: not probed, the pool waits as before
    ("postgresql://h/db?service=main", None),
    ("postgresql://h:notaport/db", None),
])
def test_rule_the_probe_knows_the_servers_a_url_names_or_probes_none(
        url: str, expected: tuple[Endpoint, ...] | None) -> None:
    assert endpoints(url) == expected
