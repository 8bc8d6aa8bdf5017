"""`Durable` over one SQLite file (the one-host default; ":memory:" for tests and tools).

One connection (made 0600, keyfiles.private_sqlite), in WAL mode with a 5 s busy timeout, shared
by the stores of a process; a lock keeps one thread's transaction whole. Several processes (the
workers of one host) share the file: `BEGIN IMMEDIATE` serializes their writers. Replaced rows
are zeroed (`secure_delete`): a re-wrapped key leaves no old wrapping in free pages.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Literal

from ..keyfiles import private_sqlite
from .db import Conflict, DatabaseError, Kind, Result


def _error(error: sqlite3.Error) -> DatabaseError:
    kind = Conflict if isinstance(error, sqlite3.IntegrityError) else DatabaseError
    return kind(f"sqlite: {error}")


class _Tx:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def execute(self, sql: str, args: Sequence[object] = ()) -> Result:
        try:
            cursor = self._db.execute(sql, tuple(args))
            return Result(cursor.fetchall() if cursor.description else [], cursor.rowcount)
        except sqlite3.Error as error:
            raise _error(error) from None

    def queue(self, sql: str, args: Sequence[object] = ()) -> Result:
        """At once: the file is on this host (no round trip to save)."""
        return self.execute(sql, args)

    def send(self) -> None:
        """Nothing waits (`queue` ran its statement)."""


class SqliteDb:
    kind: Kind = "sqlite"
    failing: str | None = None  # a file on this host: its failures are the stores' to report

    def __init__(self, path: str | Path, *, synchronous: Literal["FULL", "NORMAL"] = "FULL") -> None:
        """`synchronous` NORMAL: a commit may be lost to a power cut, never to a crash of the
        process (records that are cheap to redo: sign-in nonces)."""
        self.path = str(path)
        self._db = private_sqlite(path)  # autocommit: each statement alone, or BEGIN ... COMMIT
        self._db.isolation_level = None
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.execute("PRAGMA secure_delete=ON")
        self._lock = threading.RLock()
        self._tx = _Tx(self._db)

    def execute(self, sql: str, args: Sequence[object] = ()) -> Result:
        with self._lock:
            return self._tx.execute(sql, args)

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        with self._lock:
            try:
                self._db.executemany(sql, [tuple(row) for row in rows])
            except sqlite3.Error as error:
                raise _error(error) from None

    @contextlib.contextmanager
    def transaction(self, locks: Iterable[str] = ()) -> Iterator[_Tx]:
        """`BEGIN IMMEDIATE`: the file's write lock for the whole transaction (`locks` need no
        more)."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                raise _error(error) from None
            try:
                yield self._tx
                try:
                    self._db.execute("COMMIT")
                except sqlite3.Error as error:
                    raise _error(error) from None
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def ensure(self, sqlite_schema: str) -> None:
        with self._lock:
            try:
                self._db.executescript(sqlite_schema)
            except sqlite3.Error as error:
                raise _error(error) from None

    def compact(self) -> None:
        if self.path != ":memory:":
            with self._lock:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        with self._lock:
            self._db.close()
