"""The analytics events a session store keeps (`SessionStore.analytics`): the engine's own
tracking, the self-hosted default. `MemoryAnalytics` is the memory store's; SqliteAnalytics and
RedisAnalytics (sqlite_analytics.py, redis_events.py) the others."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter

from .base import StoredEvent, utc_day

MAX_EVENTS_HELD = 100_000  # event ids the memory store remembers (for dropping repeats); counts are kept whole


class Analytics(ABC):
    @abstractmethod
    async def add(self, event: StoredEvent) -> None:
        """Keep one tracking event (an event id seen before is ignored)."""

    def add_nowait(self, event: StoredEvent) -> bool:
        """`add` without waiting, when this store can keep the event at once (in memory, or held
        for a write-behind commit); False: it cannot, call `add`. Saves the analytics sink a
        task per event (issue 17)."""
        return False

    @abstractmethod
    async def counts(self) -> list[tuple[str, str, str, int]]:
        """(project, day as YYYY-MM-DD UTC, event, count), sorted."""

    @abstractmethod
    async def prune(self, before_ms: int) -> int:
        """Forget the events of every UTC day before the day of `before_ms` (retention:
        `[analytics] retention_days`); how many were forgotten (counted events for stores that
        keep only counts)."""


class MemoryAnalytics(Analytics):
    def __init__(self) -> None:
        self._event_ids: dict[str, None] = {}
        self._counts: Counter[tuple[str, str, str]] = Counter()

    async def add(self, event: StoredEvent) -> None:
        self.add_nowait(event)

    def add_nowait(self, event: StoredEvent) -> bool:
        if event.event_id in self._event_ids:
            return True
        self._event_ids[event.event_id] = None
        if len(self._event_ids) > MAX_EVENTS_HELD:
            del self._event_ids[next(iter(self._event_ids))]
        self._counts[(event.project_id, event.day, event.event)] += 1
        return True

    async def counts(self) -> list[tuple[str, str, str, int]]:
        return sorted((*key, count) for key, count in self._counts.items())

    async def prune(self, before_ms: int) -> int:
        cutoff = utc_day(before_ms)
        old = [key for key in self._counts if key[1] < cutoff]
        return sum(self._counts.pop(key) for key in old)
