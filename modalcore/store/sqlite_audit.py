"""The SQLite store's audit log (`SqliteStore.audit`, store/audit_log.py): tables `audit` and
`audit_heads` of the store's file (schema in sqlite.py), append-only by trigger as well."""

from __future__ import annotations

import sqlite3

from ..ledger.chain import SignedHeads, StoredEntry
from .audit_log import AuditLog
from .base import AuditConflict


class SqliteAuditLog(AuditLog):
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    async def append(self, entry: StoredEntry) -> None:
        try:
            self._db.execute(
                "INSERT INTO audit (session, seq, body, hash) VALUES (?, ?, ?, ?)",
                (entry.session_id, entry.seq, sqlite3.Binary(entry.body), entry.hash),
            )
        except sqlite3.IntegrityError as error:
            raise AuditConflict(f"audit entry {entry.session_id}/{entry.seq} exists") from error

    async def entries(self, session_id: str) -> list[StoredEntry]:
        rows = self._db.execute(
            "SELECT session, seq, body, hash FROM audit WHERE session = ? ORDER BY seq",
            (session_id,),
        ).fetchall()
        return [StoredEntry(str(r[0]), int(r[1]), bytes(r[2]), str(r[3])) for r in rows]

    async def sessions(self) -> list[str]:
        rows = self._db.execute("SELECT DISTINCT session FROM audit ORDER BY session").fetchall()
        return [str(row[0]) for row in rows]

    async def head(self, session_id: str) -> StoredEntry | None:
        row = self._db.execute(
            "SELECT session, seq, body, hash FROM audit WHERE session = ? ORDER BY seq DESC LIMIT 1",
            (session_id,),
        ).fetchone()
        return StoredEntry(str(row[0]), int(row[1]), bytes(row[2]), str(row[3])) if row else None

    async def append_heads(self, signed: SignedHeads) -> None:
        try:
            self._db.execute(
                "INSERT INTO audit_heads (worker, n, body, signature) VALUES (?, ?, ?, ?)",
                (signed.worker, signed.n, sqlite3.Binary(signed.body), signed.signature),
            )
        except sqlite3.IntegrityError as error:
            raise AuditConflict(f"signed heads {signed.worker}/{signed.n} exist") from error

    async def all_heads(self) -> list[SignedHeads]:
        rows = self._db.execute(
            "SELECT worker, n, body, signature FROM audit_heads ORDER BY worker, n").fetchall()
        return [SignedHeads(str(r[0]), int(r[1]), bytes(r[2]), str(r[3])) for r in rows]
