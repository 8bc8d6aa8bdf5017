"""What `/metrics` says of PostgreSQL (modalcore_database_statements_total, and the several-hosts
bench's round trips per intent): every statement the engine sends counts once, a transaction's
BEGIN and COMMIT too; the SQLite files report nothing."""

from __future__ import annotations

from pathlib import Path

from modalcore.durable.postgres import PostgresDb
from modalcore.durable.sqlite import SqliteDb
from modalcore.server.metrics import database_lines


def test_rule_every_statement_sent_to_postgres_counts_once(pg_url: str) -> None:
    db = PostgresDb(pg_url)
    try:
        db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)")
        db.executemany("INSERT INTO t VALUES (?, ?)", [("a", 1), ("b", 2)])
        with db.transaction(locks=["budget:x"]) as tx:  # BEGIN, the advisory lock, one read, COMMIT
            tx.execute("SELECT v FROM t WHERE k = ?", ("a",))
        assert db.statements == 1 + 2 + 4
        assert database_lines(db).splitlines()[-1] == "modalcore_database_statements_total 7"
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
    from modalcore.siwx.backend.store import DurableSiwxStore, NonceStatus

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


def test_rule_a_mail_budget_takes_five_round_trips_whatever_its_number_of_keys(db_url: str) -> None:
    """A code asked spends from every budget of the request (address, session, email, project,
    engine...) in one transaction: BEGIN, every key's lock in one statement, one read, one write,
    COMMIT. It was one lock, one read and one write per key (27 round trips for the whole code
    request before, in `make bench`'s hosts section)."""
    from modalcore.embedded.budget import BudgetLimits, BudgetStore, MailBudget, Receipt

    db = PostgresDb(db_url)
    try:
        budget = MailBudget(BudgetStore(db), BudgetLimits())
        before = db.statements
        taken = budget.take_code(1_000, address="203.0.113.7", session="s1", email="ann@example.com",
                                 project="demo")
        assert isinstance(taken, Receipt)  # taken, not refused
        assert db.statements - before == 5
    finally:
        db.close()
