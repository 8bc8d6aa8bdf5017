"""`modalcore db copy`: one host's SQLite files (`embedded.db`, `siwx.db`, `names.db`) into the
shared PostgreSQL (issue 42), so a deployment that grows from one host to several keeps its keys,
codes, budgets, ledger, intents, sign-in sessions and names.

The rows of every file move as they are, in one PostgreSQL transaction: sealed keys stay sealed under the same
master key (the hosts that read them need that key, as the one host did), digests stay digests.
The target must be at this engine's schema version (`modalcore db upgrade` first) and hold no row
in any of the tables copied: a copy never merges into records other hosts already wrote
(`CopyRefused`). The source is opened read-only: stop the one host first, so nothing it writes
after the copy is lost.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from .db import DatabaseError, Durable, Tx, no_nul
from .schema import EMBEDDED_TABLES, check

# tables whose rows SQLite names by its implicit rowid (the PostgreSQL tables carry it)
ROWID_TABLES = ("mail_budget", "siwx_nonces")



class CopyRefused(DatabaseError):
    """The copy would not be faithful (no source file, a target that already holds records)."""


def _source(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise CopyRefused(f"{path} is not a file")
    try:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise CopyRefused(f"{path}: {error}") from None


def _columns(source: sqlite3.Connection, table: str) -> list[str] | None:
    """The table's columns in the source (None: the file has no such table)."""
    rows = source.execute(f"PRAGMA table_info({table})").fetchall()
    if not rows:
        return None
    names = [str(row[1]) for row in rows]
    return ["rowid", *names] if table in ROWID_TABLES else names


def _text_safe(row: tuple[object, ...]) -> tuple[object, ...]:
    """PostgreSQL's text holds no NUL: the email codes' row keys (email NUL requester) become
    email U+001F requester, as the PostgreSQL code store writes them (embedded/codestore.py)."""
    return tuple(no_nul(v) if isinstance(v, str) else v for v in row)


def copy_sqlite(path: str | Path, target: Durable, tables: tuple[str, ...] = EMBEDDED_TABLES) -> dict[str, int]:
    """Copy `tables` (default: the embedded wallet's) of the SQLite file at `path` into `target`."""
    return copy_files([(Path(path), tables)], target)


def copy_files(sources: Sequence[tuple[Path, tuple[str, ...]]], target: Durable) -> dict[str, int]:
    """Copy each file's tables into `target` (PostgreSQL) in one transaction; returns the rows
    copied per table. CopyRefused / SchemaBehind / DatabaseError: nothing copied."""
    if target.kind != "postgres":
        raise CopyRefused("the target of a copy is a PostgreSQL database")
    check(target)
    opened = [(_source(path), path, tables) for path, tables in sources]
    copied: dict[str, int] = {}
    try:
        with target.transaction(["modalcore schema"]) as tx:
            for table in (t for _, _, tables in opened for t in tables):
                held = tx.execute(f"SELECT count(*) FROM {table}").fetchone()
                if held and int(str(held[0])):
                    raise CopyRefused(f"the target's {table} already holds rows: copy into a database "
                                      "no engine has written to")
            for source, path, tables in opened:
                for table in tables:
                    copied[table] = _copy_table(source, path, table, tx)
            for table in (t for t in ROWID_TABLES if t in copied):
                tx.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'rowid'), "
                           f"coalesce(max(rowid), 0) + 1, false) FROM {table}")
    finally:
        for source, _, _ in opened:
            source.close()
    return copied


def _copy_table(source: sqlite3.Connection, path: Path, table: str, tx: Tx) -> int:
    try:
        columns = _columns(source, table)
        if columns is None:
            return 0
        rows = source.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
    except sqlite3.Error as error:
        raise CopyRefused(f"{path}: {error}") from None
    insert = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
    for row in rows:
        tx.execute(insert, _text_safe(row))
    return len(rows)
