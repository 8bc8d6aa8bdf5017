"""Sessions in one SQLite file (stdlib sqlite3, WAL). Statements are tiny and run in-line.

Session saves and analytics events are written behind (issue 17): they wait in memory for at
most `write_behind_ms` and are then committed together in one transaction (a session saved
twice meanwhile is written once, as last saved). A statement committed on its own cost five
times what it costs inside a shared transaction. Reads see what waits (a load returns the
newest save); `flush()` commits at once (the runner calls it before a browser request leaves),
and so do `close()` and every read that scans the table. `write_behind_ms=0` commits each save
as it is made.

A commit that fails (a locked or full disk, issue 27) keeps what waits, the newest save per
session, bounded (`L.UNSAVED_SESSIONS`, `L.UNSAVED_BYTES`; past them the oldest is dropped and
logged), and is tried again, backing off to `L.SAVE_RETRY_MAX_MS`; meanwhile `failing()` says
why (the engine's /healthz answers 503) and `flush()` raises StoreWriteFailed (a wallet request
waiting on it is not sent).

Shared blobs (`blobs`, by content digest) wait with the saves that refer to them and are
committed in the same transaction, before them.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..ledger.chain import SignedHeads, StoredEntry
from ..keyfiles import private_sqlite
from ..rules import limits as L
from .base import (DEFAULT_TTL_MS, NO_BLOBS, AuditConflict, SessionStore, StoredEvent,
                   StoreWriteFailed, utc_day)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    data BLOB NOT NULL,
    touched INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_touched ON sessions (touched);
CREATE TABLE IF NOT EXISTS blobs (
    hash TEXT PRIMARY KEY,
    data BLOB NOT NULL,
    touched INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS blobs_touched ON blobs (touched);
CREATE TABLE IF NOT EXISTS audit (
    session TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body BLOB NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (session, seq)
);
CREATE TABLE IF NOT EXISTS audit_heads (
    worker TEXT NOT NULL,
    n INTEGER NOT NULL,
    body BLOB NOT NULL,
    signature TEXT NOT NULL,
    PRIMARY KEY (worker, n)
);
CREATE TRIGGER IF NOT EXISTS audit_heads_no_update BEFORE UPDATE ON audit_heads
BEGIN SELECT RAISE(ABORT, 'the signed audit heads are append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_heads_no_delete BEFORE DELETE ON audit_heads
BEGIN SELECT RAISE(ABORT, 'the signed audit heads are append-only'); END;
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

WRITE_BEHIND_MS = 20  # a save waits at most this long in memory before it is committed
WRITE_BEHIND_ROWS = 16  # … or until this many sessions and events wait (one commit costs ~ its rows)
EVENTS_HELD = 10_000  # while commits fail: past this many events waiting, the oldest are dropped

_UPSERT = ("INSERT INTO sessions (id, data, touched) VALUES (?, ?, ?) "
           "ON CONFLICT(id) DO UPDATE SET data = excluded.data, touched = excluded.touched")
_BLOB = ("INSERT INTO blobs (hash, data, touched) VALUES (?, ?, ?) "
         "ON CONFLICT(hash) DO UPDATE SET touched = excluded.touched")  # the bytes are written once
_EVENT = ("INSERT OR IGNORE INTO analytics_events (event_id, project, session, event, at, day, "
          "props) VALUES (?, ?, ?, ?, ?, ?, ?)")

log = logging.getLogger(__name__)


class SqliteStore(SessionStore):
    def __init__(self, path: str | Path, ttl_ms: int = DEFAULT_TTL_MS, *,
                 write_behind_ms: int = WRITE_BEHIND_MS, write_behind_rows: int = WRITE_BEHIND_ROWS) -> None:
        super().__init__(ttl_ms)
        self.write_behind_ms = write_behind_ms
        self.write_behind_rows = write_behind_rows
        self._pending: dict[str, tuple[bytes, int]] = {}  # session id -> (data, touched)
        self._pending_blobs: dict[str, tuple[bytes, int]] = {}  # digest -> (data, written)
        self._events: list[StoredEvent] = []
        self._timer: asyncio.TimerHandle | None = None
        self.commits = 0  # transactions that wrote saves or events (figures, tests)
        self._failure: str | None = None  # why the last commit failed (None: it did not)
        self._retry_ms = 0  # the wait before the next try while commits fail
        self.dropped = 0  # saves dropped past the bounds while commits failed
        self.path = Path(path)
        self._db = private_sqlite(path)
        # A new file gets 16 KiB pages: a commit writes fewer WAL frames (about a fifth less CPU
        # per commit measured with ~12 KiB rows). With the directory's pages saved once as blobs
        # (rows ~2.7 KiB) they still measured slightly cheaper than 4 KiB pages (8.2 vs 8.8 µs
        # per save, committed). A file that exists keeps its page size.
        self._db.execute("PRAGMA page_size=16384")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    # ----- write-behind
    def _hold(self) -> None:
        """Something waits: commit it now when enough waits, else within `write_behind_ms`
        (while commits fail, at the next retry)."""
        if self._failure is not None:
            self._bound()
            return
        if self.write_behind_ms <= 0 or len(self._pending) + len(self._events) >= self.write_behind_rows:
            self._commit()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.write_behind_ms / 1000, self._commit)

    def _commit(self) -> bool:
        """Commit what waits; False when that failed (it waits for the next try)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending and not self._events and not self._pending_blobs:
            return True
        rows = [(sid, sqlite3.Binary(data), touched) for sid, (data, touched) in self._pending.items()]
        blobs = [(digest, sqlite3.Binary(data), at) for digest, (data, at) in self._pending_blobs.items()]
        events = [(e.event_id, e.project_id, e.session_id, e.event, e.at, e.day, sqlite3.Binary(e.props))
                  for e in self._events]
        try:
            self._db.execute("BEGIN")
            try:
                if blobs:  # before the sessions that refer to them (one transaction anyway)
                    self._db.executemany(_BLOB, blobs)
                if rows:
                    self._db.executemany(_UPSERT, rows)
                if events:
                    self._db.executemany(_EVENT, events)
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        except Exception as error:
            self._failed(f"{type(error).__name__}: {error}", len(rows), len(events))
            return False
        if self._failure is not None:
            log.warning("sqlite store: commits work again (%d saves committed)", len(rows))
        self._failure = None
        self._retry_ms = 0
        self.commits += 1
        self._pending.clear()
        self._pending_blobs.clear()
        self._events.clear()
        return True

    def _failed(self, reason: str, rows: int, events: int) -> None:
        """Keep what waits (the newest save per session, bounded) and try again later."""
        if self._failure is None:
            log.warning("sqlite store: committing %d saves and %d events failed (%s); kept, retried",
                        rows, events, reason)
        self._failure = reason
        if self.on_write_error is not None:
            self.on_write_error()
        self._bound()
        self._retry_ms = min(L.SAVE_RETRY_MAX_MS, max(L.SAVE_RETRY_FIRST_MS, 2 * self._retry_ms))
        if self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return  # closing outside the loop: nothing to retry on
            self._timer = loop.call_later(self._retry_ms / 1000, self._commit)

    def _bound(self) -> None:
        """While commits fail: the oldest saves past the bounds are dropped (logged)."""
        held = sum(len(data) for data, _ in self._pending.values())
        while self._pending and (len(self._pending) > L.UNSAVED_SESSIONS or held > L.UNSAVED_BYTES):
            session_id, (data, _) = next(iter(self._pending.items()))
            del self._pending[session_id]
            held -= len(data)
            self.dropped += 1
            log.warning("sqlite store: session %s's unsaved state dropped (over the bound)", session_id)
        if len(self._events) > EVENTS_HELD:
            del self._events[:len(self._events) - EVENTS_HELD]

    def failing(self) -> str | None:
        return None if self._failure is None else f"sqlite store: saves are not committed: {self._failure}"

    def held_unsaved(self) -> int:
        return len(self._pending) if self._failure is not None else 0

    async def flush(self) -> None:
        if not self._commit():
            raise StoreWriteFailed(self.failing() or "sqlite store: commit failed")

    # ----- sessions
    async def load(self, session_id: str, now_ms: int) -> bytes | None:
        held = self._pending.get(session_id)
        if held is not None:
            if self._expired(held[1], now_ms):
                await self.delete(session_id)
                return None
            return held[0]
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

    async def save(self, session_id: str, data: bytes, now_ms: int,
                   blobs: Mapping[str, bytes] = NO_BLOBS) -> None:
        if blobs:
            fresh = self._ledger.to_write(blobs, now_ms)
            for digest, blob in fresh.items():
                self._pending_blobs[digest] = (blob, now_ms)
                self.bytes_written += len(blob)
            if fresh:  # waits with this save: committed with it or not at all
                self._ledger.wrote(fresh, now_ms)
        self._pending.pop(session_id, None)  # re-inserted last: the dict stays in save order
        self._pending[session_id] = (data, now_ms)
        self.bytes_written += len(data)
        self._hold()

    async def load_blobs(self, digests: Iterable[str], now_ms: int) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        asked: list[str] = []
        for digest in digests:
            held = self._pending_blobs.get(digest)
            if held is not None:
                found[digest] = held[0]
            else:
                asked.append(digest)
        for start in range(0, len(asked), 500):  # under SQLite's limit of bound parameters
            part = asked[start:start + 500]
            marks = ", ".join("?" * len(part))
            for digest, data in self._db.execute(
                    f"SELECT hash, data FROM blobs WHERE hash IN ({marks})", part).fetchall():
                found[str(digest)] = bytes(data)
        return found

    async def delete(self, session_id: str) -> None:
        self._pending.pop(session_id, None)
        self._db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    async def touch(self, session_id: str, now_ms: int) -> None:
        held = self._pending.get(session_id)
        if held is not None:
            self._pending[session_id] = (held[0], now_ms)
        self._db.execute("UPDATE sessions SET touched = ? WHERE id = ?", (now_ms, session_id))

    async def expire(self, now_ms: int) -> int:
        self._commit()
        cursor = self._db.execute(
            "DELETE FROM sessions WHERE touched < ?", (now_ms - self.ttl_ms,)
        )
        self._db.execute("DELETE FROM blobs WHERE touched < ?", (now_ms - self.blob_ttl_ms,))
        return cursor.rowcount

    async def count(self) -> int:
        self._commit()
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

    async def heads_append(self, signed: SignedHeads) -> None:
        try:
            self._db.execute(
                "INSERT INTO audit_heads (worker, n, body, signature) VALUES (?, ?, ?, ?)",
                (signed.worker, signed.n, sqlite3.Binary(signed.body), signed.signature),
            )
        except sqlite3.IntegrityError as error:
            raise AuditConflict(f"signed heads {signed.worker}/{signed.n} exist") from error

    async def heads_all(self) -> list[SignedHeads]:
        rows = self._db.execute(
            "SELECT worker, n, body, signature FROM audit_heads ORDER BY worker, n").fetchall()
        return [SignedHeads(str(r[0]), int(r[1]), bytes(r[2]), str(r[3])) for r in rows]

    async def events_add(self, event: StoredEvent) -> None:
        self._events.append(event)
        self._hold()

    def events_add_nowait(self, event: StoredEvent) -> bool:
        if self.write_behind_ms <= 0:
            return False  # committed as it comes: the caller awaits `events_add`
        self._events.append(event)
        self._hold()
        return True

    async def event_counts(self) -> list[tuple[str, str, str, int]]:
        self._commit()
        rows = self._db.execute(
            "SELECT project, day, event, COUNT(*) FROM analytics_events "
            "GROUP BY project, day, event ORDER BY project, day, event"
        ).fetchall()
        return [(str(r[0]), str(r[1]), str(r[2]), int(r[3])) for r in rows]

    async def events_prune(self, before_ms: int) -> int:
        self._commit()
        cursor = self._db.execute("DELETE FROM analytics_events WHERE day < ?", (utc_day(before_ms),))
        return int(cursor.rowcount)

    async def close(self) -> None:
        if not self._commit():
            log.error("sqlite store: closed with %d sessions' saves not committed (%s)",
                      len(self._pending), self._failure)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._db.close()
