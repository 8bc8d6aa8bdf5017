"""What the stores need from a database (issue 42): statements with `?` placeholders, results
read like sqlite3's cursors, and transactions that serialize the writers of the same keys.

A store writes portable SQL (both SQLite ≥ 3.35 and PostgreSQL run it: `ON CONFLICT ... DO
UPDATE/NOTHING`, `RETURNING`, subqueries with `LIMIT`); the schema is each side's own (SQLite:
the store's `CREATE TABLE IF NOT EXISTS`, applied by `ensure`; PostgreSQL: the migrations of
schema.py, applied by `modalcore db upgrade`).

`transaction(locks)` is what a budget decides and charges in: on SQLite one `BEGIN IMMEDIATE`
(the whole file's write lock, as before); on PostgreSQL a transaction that first takes an
advisory lock per key, in sorted order (no deadlock), so two hosts racing for the last of a
budget run one after the other and exactly one wins. Its statements go in pipelines there
(`Tx.queue`, `Tx.send`): a transaction that reads once, decides, and writes is two round trips. Every failure of the database is a
`DatabaseError` (a constraint: `Conflict`), never the driver's own exception.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

Kind = Literal["sqlite", "postgres"]
Row = tuple[object, ...]


class DatabaseError(Exception):
    """The database could not run a statement (unreachable, locked, a table missing...); the
    message names no password."""


class Conflict(DatabaseError):
    """A uniqueness or other constraint refused the write."""


@dataclass(frozen=True)
class SchemaBehind(DatabaseError):
    """The database's schema is older than this engine's code: refused at start until the
    operator runs `modalcore db upgrade`."""

    found: int
    needed: int

    def __str__(self) -> str:
        return (f"the database schema is at version {self.found}, this engine needs {self.needed}: "
                "run `modalcore db upgrade --config FILE` first")


@dataclass(frozen=True)
class SchemaAhead(DatabaseError):
    """The database was upgraded by a newer engine than this one."""

    found: int
    needed: int

    def __str__(self) -> str:
        return (f"the database schema is at version {self.found}, newer than this engine's "
                f"{self.needed}: run the newer engine")


@dataclass
class Result:
    """A statement's rows (all read at once: the stores ask for a handful) and its row count."""

    rows: list[Row] = field(default_factory=list)
    rowcount: int = -1

    def fetchone(self) -> Row | None:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[Row]:
        return list(self.rows)


class Tx(Protocol):
    """A transaction's statements. `queue` is a statement whose answer can wait: PostgreSQL sends
    it with the transaction's next `execute` or `send` (one round trip for all; the COMMIT sends
    the rest), SQLite runs it at once; its Result is filled once sent (read it after the
    transaction, or after a `send`)."""

    def execute(self, sql: str, args: Sequence[object] = ()) -> Result: ...

    def queue(self, sql: str, args: Sequence[object] = ()) -> Result: ...

    def send(self) -> None: ...


class Durable(Protocol):
    """One database the stores share (one connection for SQLite, a pool for PostgreSQL)."""

    kind: Kind
    # why the last call could not reach the database (None: it could); /healthz reports it
    failing: str | None

    def execute(self, sql: str, args: Sequence[object] = ()) -> Result:
        """One statement in its own transaction."""
        ...

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None: ...

    def transaction(self, locks: Iterable[str] = ()) -> contextlib.AbstractContextManager[Tx]:
        """Statements that commit together (rolled back on any exception); writers naming the
        same lock key run one after the other."""
        ...

    def ensure(self, sqlite_schema: str) -> None:
        """A store's tables: created on SQLite; on PostgreSQL the migrations made them."""
        ...

    def compact(self) -> None:
        """Give back the room of rewritten rows (SQLite's WAL checkpoint); nothing elsewhere."""
        ...

    def close(self) -> None: ...


def one_int(tx: Tx | Durable, sql: str, args: Sequence[object] = ()) -> int:
    """The first column of the first row as an int (0 when there is none)."""
    row = tx.execute(sql, args).fetchone()
    return 0 if row is None or row[0] is None else int(str(row[0]))


def no_nul(text: str) -> str:
    """`text` as PostgreSQL's text can hold it: NUL (which it refuses) becomes U+001F. The email
    codes' row keys join email and requester with NUL (embedded/codes.py); no valid email or
    session id holds either character."""
    return text.replace("\x00", "\x1f")
