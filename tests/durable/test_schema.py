"""PostgreSQL's schema is migrations the engine applies (issue 42): `upgrade` brings an empty
database to this engine's version once (a second run applies nothing), an engine refuses a
database that is older or newer with a typed one-line error, and the tables hold exactly the
columns the SQLite stores create (the two sides run the same SQL)."""

from __future__ import annotations

import sqlite3

import psycopg
import pytest

from modalcore.aa.ledger import _SCHEMA as LEDGER
from modalcore.durable.config import DatabaseSection, open_postgres
from modalcore.durable.db import SchemaAhead, SchemaBehind
from modalcore.durable.postgres import PostgresDb, redacted
from modalcore.durable.schema import EMBEDDED_TABLES, NAMES_TABLES, SIWX_TABLES, VERSION, check, upgrade, version
from modalcore.embedded.budget import _SCHEMA as BUDGET
from modalcore.embedded.codestore import _SCHEMA as CODES
from modalcore.embedded.devicekeys import _SCHEMA as DEVICES
from modalcore.embedded.intents import _SCHEMA as INTENTS
from modalcore.embedded.keys import _SCHEMA as KEYS
from modalcore.embedded.passkeys import _SCHEMA as PASSKEYS
from modalcore.services.backend.name_registry import _SCHEMA as NAMES
from modalcore.siwx.backend.store import _SCHEMA as SIWX


def test_rule_upgrade_applies_each_migration_once(pg_url: str) -> None:
    db = PostgresDb(pg_url)
    try:
        assert version(db) == 0
        assert upgrade(db) == list(range(1, VERSION + 1))
        assert version(db) == VERSION
        assert upgrade(db) == []
        check(db)
    finally:
        db.close()


def test_rule_an_engine_refuses_a_schema_older_than_its_code_in_one_typed_line(pg_url: str) -> None:
    with pytest.raises(SchemaBehind) as refused:
        open_postgres(DatabaseSection(url=pg_url))
    assert (refused.value.found, refused.value.needed) == (0, VERSION)
    assert "\n" not in str(refused.value) and "modalcore db upgrade" in str(refused.value)


def test_rule_an_engine_refuses_a_schema_newer_than_its_code(pg_url: str) -> None:
    db = PostgresDb(pg_url)
    try:
        upgrade(db)
        db.execute("UPDATE modalcore_schema SET version = ?", (VERSION + 1,))
        with pytest.raises(SchemaAhead):
            check(db)
    finally:
        db.close()


def _sqlite_columns() -> dict[str, set[str]]:
    db = sqlite3.connect(":memory:")
    for schema in (KEYS, CODES, BUDGET, DEVICES, PASSKEYS, LEDGER, INTENTS, SIWX, NAMES):
        db.executescript(schema)
    tables = [str(r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {t: {str(r[1]) for r in db.execute(f"PRAGMA table_info({t})")} for t in tables}


def test_the_postgres_tables_hold_the_sqlite_stores_columns(pg_url: str) -> None:
    db = PostgresDb(pg_url)
    try:
        upgrade(db)
    finally:
        db.close()
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT table_name, column_name FROM information_schema.columns "
                            "WHERE table_schema = 'public'").fetchall()
    postgres: dict[str, set[str]] = {}
    for table, column in rows:
        postgres.setdefault(table, set()).add(column)
    sqlite = _sqlite_columns()
    assert set(sqlite) == {*EMBEDDED_TABLES, *SIWX_TABLES, *NAMES_TABLES}
    assert set(postgres) == {*sqlite, "modalcore_schema"}
    for table, columns in sqlite.items():
        assert postgres[table] - {"rowid"} == columns, table


def test_a_url_in_an_error_names_no_password() -> None:
    assert redacted("postgresql://app:s3cret@db.internal:5432/modalcore") == \
        "postgresql://app:***@db.internal:5432/modalcore"
