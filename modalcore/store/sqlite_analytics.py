"""The SQLite store's analytics events (`SqliteStore.analytics`, store/analytics.py): table
`analytics_events` of the store's file, written behind with the sessions' saves (one transaction,
sqlite_writer.py)."""

from __future__ import annotations

import sqlite3

from .analytics import Analytics
from .base import StoredEvent, utc_day
from .sqlite_writer import SqliteWriter


class SqliteAnalytics(Analytics):
    def __init__(self, db: sqlite3.Connection, writer: SqliteWriter) -> None:
        self._db = db
        self._writer = writer

    async def add(self, event: StoredEvent) -> None:
        self._writer.events.append(event)
        self._writer.hold()

    def add_nowait(self, event: StoredEvent) -> bool:
        if self._writer.write_behind_ms <= 0:
            return False  # committed as it comes: the caller awaits `add`
        self._writer.events.append(event)
        self._writer.hold()
        return True

    async def counts(self) -> list[tuple[str, str, str, int]]:
        self._writer.commit()
        rows = self._db.execute(
            "SELECT project, day, event, COUNT(*) FROM analytics_events "
            "GROUP BY project, day, event ORDER BY project, day, event"
        ).fetchall()
        return [(str(r[0]), str(r[1]), str(r[2]), int(r[3])) for r in rows]

    async def prune(self, before_ms: int) -> int:
        self._writer.commit()
        cursor = self._db.execute("DELETE FROM analytics_events WHERE day < ?", (utc_day(before_ms),))
        return int(cursor.rowcount)
