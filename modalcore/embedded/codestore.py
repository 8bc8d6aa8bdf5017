"""Email codes in SQLite: one row per email holding the latest code's digest (never the code)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..keyfiles import private_sqlite
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
    def __init__(self, path: str | Path) -> None:
        self._db = private_sqlite(path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def get(self, email: str) -> CodeRecord | None:
        row = self._db.execute(
            "SELECT digest, issued_ms, attempts, used FROM email_codes WHERE email = ?", (email,)
        ).fetchone()
        if row is None:
            return None
        digest, issued_ms, attempts, used = row
        return CodeRecord(email, bytes(digest), int(issued_ms), int(attempts), bool(used))

    def put(self, record: CodeRecord) -> None:
        self._db.execute(
            "INSERT INTO email_codes (email, digest, issued_ms, attempts, used) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT(email) DO UPDATE SET digest = excluded.digest, "
            "issued_ms = excluded.issued_ms, attempts = excluded.attempts, used = excluded.used",
            (record.email, sqlite3.Binary(record.digest), record.issued_ms, record.attempts,
             int(record.used)),
        )

    def restore(self, email: str, issued: bytes, previous: CodeRecord | None) -> bool:
        """Put back `previous` (None: no row) if the row still holds the code digest `issued`:
        a code whose mail was never sent is withdrawn, and its 30 s window with it."""
        if previous is None:
            cursor = self._db.execute("DELETE FROM email_codes WHERE email = ? AND digest = ?",
                                      (email, sqlite3.Binary(issued)))
        else:
            cursor = self._db.execute(
                "UPDATE email_codes SET digest = ?, issued_ms = ?, attempts = ?, used = ? "
                "WHERE email = ? AND digest = ?",
                (sqlite3.Binary(previous.digest), previous.issued_ms, previous.attempts,
                 int(previous.used), email, sqlite3.Binary(issued)))
        return cursor.rowcount == 1

    def close(self) -> None:
        self._db.close()
