"""Sessions in one SQLite file (stdlib sqlite3, WAL). Statements are tiny and run in-line."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..audit.chain import StoredEntry
from .base import DEFAULT_TTL_MS, AuditConflict, SessionStore, StoredEvent, utc_day

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    data BLOB NOT NULL,
    touched INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_touched ON sessions (touched);
CREATE TABLE IF NOT EXISTS audit (
    session TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body BLOB NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (session, seq)
);
CREATE TABLE IF NOT EXISTS analytics_events (
    event_id TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    session TEXT NOT NULL,
    event TEXT NOT NULL,
    at INTEGER NOT NULL,
    day TEXT NOT NULL,
    props BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS analytics_events_count ON analytics_events (project, day, event);
CREATE TRIGGER IF NOT EXISTS audit_no_update BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_no_delete BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
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

    async def audit_append(self, entry: StoredEntry) -> None:
        try:
            self._db.execute(
                "INSERT INTO audit (session, seq, body, hash) VALUES (?, ?, ?, ?)",
                (entry.session_id, entry.seq, sqlite3.Binary(entry.body), entry.hash),
            )
        except sqlite3.IntegrityError as error:
            raise AuditConflict(f"audit entry {entry.session_id}/{entry.seq} exists") from error

    async def audit_entries(self, session_id: str) -> list[StoredEntry]:
        rows = self._db.execute(
            "SELECT session, seq, body, hash FROM audit WHERE session = ? ORDER BY seq",
            (session_id,),
        ).fetchall()
        return [StoredEntry(str(r[0]), int(r[1]), bytes(r[2]), str(r[3])) for r in rows]

    async def audit_sessions(self) -> list[str]:
        rows = self._db.execute("SELECT DISTINCT session FROM audit ORDER BY session").fetchall()
        return [str(row[0]) for row in rows]

    async def audit_head(self, session_id: str) -> StoredEntry | None:
        row = self._db.execute(
            "SELECT session, seq, body, hash FROM audit WHERE session = ? ORDER BY seq DESC LIMIT 1",
            (session_id,),
        ).fetchone()
        return StoredEntry(str(row[0]), int(row[1]), bytes(row[2]), str(row[3])) if row else None

    async def events_add(self, event: StoredEvent) -> None:
        self._db.execute(
            "INSERT OR IGNORE INTO analytics_events (event_id, project, session, event, at, day, "
            "props) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (event.event_id, event.project_id, event.session_id, event.event, event.at,
             event.day, sqlite3.Binary(event.props)),
        )

    async def event_counts(self) -> list[tuple[str, str, str, int]]:
        rows = self._db.execute(
            "SELECT project, day, event, COUNT(*) FROM analytics_events "
            "GROUP BY project, day, event ORDER BY project, day, event"
        ).fetchall()
        return [(str(r[0]), str(r[1]), str(r[2]), int(r[3])) for r in rows]

    async def events_prune(self, before_ms: int) -> int:
        cursor = self._db.execute("DELETE FROM analytics_events WHERE day < ?", (utc_day(before_ms),))
        return int(cursor.rowcount)

    async def close(self) -> None:
        self._db.close()
