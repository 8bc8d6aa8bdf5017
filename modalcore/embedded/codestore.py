"""Email codes in the durable store (a SQLite file, or the shared PostgreSQL): one row per email
and requester holding the latest code's digest (never the code).

A row's key joins the email and the requester with NUL (codes.row_key), which PostgreSQL's text
cannot hold: there the NUL is stored as U+001F (durable.db.no_nul), a character no valid email or
session id contains; `db copy` maps the SQLite rows the same way."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from pathlib import Path

from ..durable.db import Durable, Tx, no_nul
from ..durable.sqlite import SqliteDb
from .otp import CodeRecord

_SCHEMA = """
CREATE TABLE IF NOT EXISTS email_codes (
    email TEXT PRIMARY KEY,
    digest BLOB NOT NULL,
    issued_ms INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    used INTEGER NOT NULL
);
"""


class CodeStore:
    def __init__(self, path: str | Path | Durable) -> None:
        self._db = SqliteDb(path) if isinstance(path, (str, Path)) else path
        self._own = isinstance(path, (str, Path))
        self._db.ensure(_SCHEMA)
        self._postgres = self._db.kind == "postgres"
        self._exec: Durable | Tx = self._db  # where get/put/restore run: the database, or a transaction
        self._tx: Tx | None = None

    @property
    def db(self) -> Durable:
        return self._db

    def lock(self, email: str) -> str:
        """The lock key of `email`'s row (a transaction holding it is the row's only writer)."""
        return f"email_codes:{self._key(email)}"

    @contextlib.contextmanager
    def held(self, email: str) -> Iterator[CodeStore]:
        """This store inside one transaction holding `email`'s row lock, for one read, decision
        and write: two workers or hosts checking (or issuing) codes for one row run one after
        the other, so a code is accepted once and every wrong one is counted."""
        with self._db.transaction([self.lock(email)]) as tx:
            yield self.bound(tx)

    def bound(self, tx: Tx) -> CodeStore:
        """This store inside `tx` (which holds the rows' locks): `get` reads (sending what `tx`
        queued), `put` is queued (sent with the next read or the COMMIT)."""
        bound = copy.copy(self)
        bound._exec = bound._tx = tx
        return bound

    def _key(self, email: str) -> str:
        return no_nul(email) if self._postgres else email

    def get(self, email: str) -> CodeRecord | None:
        row = self._exec.execute(
            "SELECT digest, issued_ms, attempts, used FROM email_codes WHERE email = ?", (self._key(email),)
        ).fetchone()
        if row is None:
            return None
        digest, issued_ms, attempts, used = row
        assert isinstance(digest, (bytes, memoryview))
        return CodeRecord(email, bytes(digest), int(str(issued_ms)), int(str(attempts)), bool(used))

    def put(self, record: CodeRecord) -> None:
        write = self._exec.execute if self._tx is None else self._tx.queue
        write(
            "INSERT INTO email_codes (email, digest, issued_ms, attempts, used) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT(email) DO UPDATE SET digest = excluded.digest, "
            "issued_ms = excluded.issued_ms, attempts = excluded.attempts, used = excluded.used",
            (self._key(record.email), record.digest, record.issued_ms, record.attempts, int(record.used)),
        )

    def restore(self, email: str, issued: bytes, previous: CodeRecord | None) -> bool:
        """Put back `previous` (None: no row) if the row still holds the code digest `issued`:
        a code whose mail was never sent is withdrawn, and its 30 s window with it."""
        if previous is None:
            result = self._exec.execute("DELETE FROM email_codes WHERE email = ? AND digest = ?",
                                      (self._key(email), issued))
        else:
            result = self._exec.execute(
                "UPDATE email_codes SET digest = ?, issued_ms = ?, attempts = ?, used = ? "
                "WHERE email = ? AND digest = ?",
                (previous.digest, previous.issued_ms, previous.attempts, int(previous.used), self._key(email), issued))
        return result.rowcount == 1

    def close(self) -> None:
        """Close a SQLite file it opened (a database handed to it is its opener's to close)."""
        if self._own:
            self._db.close()
