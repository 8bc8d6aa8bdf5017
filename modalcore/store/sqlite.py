"""Sessions in one SQLite file (stdlib sqlite3, WAL). Statements are tiny and run in-line."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .base import DEFAULT_TTL_MS, SessionStore

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    data BLOB NOT NULL,
    touched INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_touched ON sessions (touched);
"""


class SqliteStore(SessionStore):
    def __init__(self, path: str | Path, ttl_ms: int = DEFAULT_TTL_MS) -> None:
        super().__init__(ttl_ms)
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    async def load(self, session_id: str, now_ms: int) -> bytes | None:
        row = self._db.execute(
            "SELECT data, touched FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        if row is None:
            return None
        data, touched = row
        if self._expired(int(touched), now_ms):
            await self.delete(session_id)
            return None
        return bytes(data)

    async def save(self, session_id: str, data: bytes, now_ms: int) -> None:
        self._db.execute(
            "INSERT INTO sessions (id, data, touched) VALUES (?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET data = excluded.data, touched = excluded.touched",
            (session_id, sqlite3.Binary(data), now_ms),
        )

    async def delete(self, session_id: str) -> None:
        self._db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    async def touch(self, session_id: str, now_ms: int) -> None:
        self._db.execute("UPDATE sessions SET touched = ? WHERE id = ?", (now_ms, session_id))

    async def expire(self, now_ms: int) -> int:
        cursor = self._db.execute(
            "DELETE FROM sessions WHERE touched < ?", (now_ms - self.ttl_ms,)
        )
        return cursor.rowcount

    async def count(self) -> int:
        row = self._db.execute("SELECT COUNT(*) FROM sessions").fetchone()
        return int(row[0])

    async def close(self) -> None:
        self._db.close()
