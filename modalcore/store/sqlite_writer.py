"""The SQLite store's writes behind (issue 17, sqlite.py): session saves, the shared blobs they
refer to and analytics events wait in memory for at most `write_behind_ms` and are then committed
together in one transaction (a session saved twice meanwhile is written once, as last saved).

A commit that fails (a locked or full disk, issue 27) keeps what waits, the newest save per
session, bounded (`L.UNSAVED_SESSIONS`, `L.UNSAVED_BYTES`; past them the oldest is dropped and
logged), and is tried again, backing off to `L.SAVE_RETRY_MAX_MS`; meanwhile `failing()` says
why."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable

from ..rules import limits as L
from .base import StoredEvent

WRITE_BEHIND_MS = 20  # a save waits at most this long in memory before it is committed
WRITE_BEHIND_ROWS = 16  # … or until this many sessions and events wait (one commit costs ~ its rows)
EVENTS_HELD = 10_000  # while commits fail: past this many events waiting, the oldest are dropped

_UPSERT = ("INSERT INTO sessions (id, data, touched) VALUES (?, ?, ?) "
           "ON CONFLICT(id) DO UPDATE SET data = excluded.data, touched = excluded.touched")
_BLOB = ("INSERT INTO blobs (hash, data, touched) VALUES (?, ?, ?) "
         "ON CONFLICT(hash) DO UPDATE SET touched = excluded.touched")  # the bytes are written once
_EVENT = ("INSERT OR IGNORE INTO analytics_events (event_id, project, session, event, at, day, "
          "props) VALUES (?, ?, ?, ?, ?, ?, ?)")

log = logging.getLogger("modalcore.store.sqlite")  # the store's own log, as before the split


class SqliteWriter:
    """What waits to be committed, and the commits. `on_error` is called for each commit that
    failed (the store's `on_write_error`)."""

    def __init__(self, db: sqlite3.Connection, write_behind_ms: int, write_behind_rows: int,
                 on_error: Callable[[], None]) -> None:
        self._db = db
        self.write_behind_ms = write_behind_ms
        self.write_behind_rows = write_behind_rows
        self._on_error = on_error
        self.pending: dict[str, tuple[bytes, int]] = {}  # session id -> (data, touched)
        self.pending_blobs: dict[str, tuple[bytes, int]] = {}  # digest -> (data, written)
        self.events: list[StoredEvent] = []
        self._timer: asyncio.TimerHandle | None = None
        self.commits = 0  # transactions that wrote saves or events (figures, tests)
        self.failure: str | None = None  # why the last commit failed (None: it did not)
        self._retry_ms = 0  # the wait before the next try while commits fail
        self.dropped = 0  # saves dropped past the bounds while commits failed

    def hold(self) -> None:
        """Something waits: commit it now when enough waits, else within `write_behind_ms`
        (while commits fail, at the next retry)."""
        if self.failure is not None:
            self._bound()
            return
        if self.write_behind_ms <= 0 or len(self.pending) + len(self.events) >= self.write_behind_rows:
            self.commit()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.write_behind_ms / 1000, self.commit)

    def commit(self) -> bool:
        """Commit what waits; False when that failed (it waits for the next try)."""
        self.stop()
        if not self.pending and not self.events and not self.pending_blobs:
            return True
        rows = [(sid, sqlite3.Binary(data), touched) for sid, (data, touched) in self.pending.items()]
        blobs = [(digest, sqlite3.Binary(data), at) for digest, (data, at) in self.pending_blobs.items()]
        events = [(e.event_id, e.project_id, e.session_id, e.event, e.at, e.day, sqlite3.Binary(e.props))
                  for e in self.events]
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
        if self.failure is not None:
            log.warning("sqlite store: commits work again (%d saves committed)", len(rows))
        self.failure = None
        self._retry_ms = 0
        self.commits += 1
        self.pending.clear()
        self.pending_blobs.clear()
        self.events.clear()
        return True

    def stop(self) -> None:
        """No commit is due any more (one is made now, or the store closes)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _failed(self, reason: str, rows: int, events: int) -> None:
        """Keep what waits (the newest save per session, bounded) and try again later."""
        if self.failure is None:
            log.warning("sqlite store: committing %d saves and %d events failed (%s); kept, retried",
                        rows, events, reason)
        self.failure = reason
        self._on_error()
        self._bound()
        self._retry_ms = min(L.SAVE_RETRY_MAX_MS, max(L.SAVE_RETRY_FIRST_MS, 2 * self._retry_ms))
        if self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return  # closing outside the loop: nothing to retry on
            self._timer = loop.call_later(self._retry_ms / 1000, self.commit)

    def _bound(self) -> None:
        """While commits fail: the oldest saves past the bounds are dropped (logged)."""
        held = sum(len(data) for data, _ in self.pending.values())
        while self.pending and (len(self.pending) > L.UNSAVED_SESSIONS or held > L.UNSAVED_BYTES):
            session_id, (data, _) = next(iter(self.pending.items()))
            del self.pending[session_id]
            held -= len(data)
            self.dropped += 1
            log.warning("sqlite store: session %s's unsaved state dropped (over the bound)", session_id)
        if len(self.events) > EVENTS_HELD:
            del self.events[:len(self.events) - EVENTS_HELD]
