"""`modalcore db copy`: one host's SQLite file (`embedded.db`) into the shared PostgreSQL (issue
42), so a deployment that grows from one host to several keeps its keys, codes, budgets, ledger
and intents.

The rows move as they are, in one PostgreSQL transaction: sealed keys stay sealed under the same
master key (the hosts that read them need that key, as the one host did), digests stay digests.
The target must be at this engine's schema version (`modalcore db upgrade` first) and hold no row
in any of the tables copied: a copy never merges into records other hosts already wrote
(`CopyRefused`). The source is opened read-only: stop the one host first, so nothing it writes
after the copy is lost.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .db import DatabaseError, Durable, no_nul
from .schema import EMBEDDED_TABLES, check



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
    return ["rowid", *names] if table == "mail_budget" else names


def _text_safe(row: tuple[object, ...]) -> tuple[object, ...]:
    """PostgreSQL's text holds no NUL: the email codes' row keys (email NUL requester) become
    email U+001F requester, as the PostgreSQL code store writes them (embedded/codestore.py)."""
    return tuple(no_nul(v) if isinstance(v, str) else v for v in row)


def copy_sqlite(path: str | Path, target: Durable) -> dict[str, int]:
    """Copy every embedded table of the SQLite file at `path` into `target` (PostgreSQL); returns
    the rows copied per table. CopyRefused / SchemaBehind / DatabaseError: nothing copied."""
    if target.kind != "postgres":
        raise CopyRefused("the target of a copy is a PostgreSQL database")
    check(target)
    source = _source(Path(path))
    copied: dict[str, int] = {}
    try:
        with target.transaction(["modalcore schema"]) as tx:
            for table in EMBEDDED_TABLES:
                held = tx.execute(f"SELECT count(*) FROM {table}").fetchone()
                if held and int(str(held[0])):
                    raise CopyRefused(f"the target's {table} already holds rows: copy into a database "
                                      "no engine has written to")
            for table in EMBEDDED_TABLES:
                try:
                    columns = _columns(source, table)
                    if columns is None:
                        continue
                    rows = source.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
                except sqlite3.Error as error:
                    raise CopyRefused(f"{path}: {error}") from None
                insert = (f"INSERT INTO {table} ({', '.join(columns)}) "
                          f"VALUES ({', '.join('?' for _ in columns)})")
                for row in rows:
                    tx.execute(insert, _text_safe(row))
                copied[table] = len(rows)
            tx.execute("SELECT setval(pg_get_serial_sequence('mail_budget', 'rowid'), "
                       "coalesce(max(rowid), 0) + 1, false) FROM mail_budget")
    finally:
        source.close()
    return copied
