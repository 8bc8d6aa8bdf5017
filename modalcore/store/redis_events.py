"""Analytics events in Redis (`RedisStore.analytics`, store/analytics.py): held for a few
milliseconds and sent together, one EVALSHA per batch (SET NX of each id, HINCRBY of its count
when new); `evc` holds the counts by "project|day|event", `ev:{id}` an id seen."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .analytics import Analytics
from .base import StoredEvent, utc_day
from .redis_link import RedisLink
from .redis_scripts import EVENTS

log = logging.getLogger(__name__)

EVENT_ID_TTL_S = 7 * 24 * 3600
EVENTS_BEHIND_MS = 20  # an analytics event waits at most this long to be sent with others
EVENTS_BATCH = 256  # … or until this many wait (and at most this many go in one request)
EVENTS_HELD = 10_000  # while Redis fails: past this many waiting, the oldest are dropped (logged)
EVENTS_RETRY_S = 1.0
_SEP = "|"


class RedisAnalytics(Analytics):
    def __init__(self, link: RedisLink) -> None:
        self._link = link
        self._events_script = link.redis.register_script(EVENTS)
        self._events: list[StoredEvent] = []  # held for the next batch (`add_nowait`)
        self._events_timer: asyncio.TimerHandle | None = None
        self._events_task: asyncio.Task[None] | None = None

    async def add(self, event: StoredEvent) -> None:
        await self._send_events([event])

    def add_nowait(self, event: StoredEvent) -> bool:
        """Held and sent with the others of the next `EVENTS_BEHIND_MS` in one request (a
        request per event was half the Redis requests of an intent, issue 17)."""
        self._events.append(event)
        if len(self._events) > EVENTS_HELD:
            del self._events[:len(self._events) - EVENTS_HELD]
            log.warning("redis store: analytics events waiting past %d, the oldest dropped", EVENTS_HELD)
        if len(self._events) >= EVENTS_BATCH:
            self._kick_events()
        elif self._events_timer is None and self._events_task is None:
            self._events_timer = asyncio.get_running_loop().call_later(
                EVENTS_BEHIND_MS / 1000, self._kick_events)
        return True

    def _kick_events(self) -> None:
        if self._events_timer is not None:
            self._events_timer.cancel()
            self._events_timer = None
        if self._events_task is None and self._events:
            self._events_task = asyncio.get_running_loop().create_task(self._drain_events())

    async def _drain_events(self) -> None:
        """Send what waits, a batch per request; on failure keep it and try again later."""
        try:
            while self._events:
                batch = self._events[:EVENTS_BATCH]
                del self._events[:EVENTS_BATCH]
                try:
                    await self._send_events(batch)
                except Exception as error:
                    # one line per retry, no traceback: Redis being down is not a bug (issue 27)
                    log.warning("redis store: sending %d analytics events failed (%s: %s); again in %g s",
                                len(batch), type(error).__name__, error, EVENTS_RETRY_S)
                    self._events[:0] = batch
                    if self._events_timer is None:
                        self._events_timer = asyncio.get_running_loop().call_later(
                            EVENTS_RETRY_S, self._kick_events)
                    return
        finally:
            self._events_task = None

    async def _send_events(self, events: list[StoredEvent]) -> None:
        keys = [f"{self._link.prefix}evc"]
        args: list[str | int] = [EVENT_ID_TTL_S]
        for event in events:
            keys.append(self._link.key("ev", event.event_id))
            args.append(_SEP.join((event.project_id, event.day, event.event)))
        await self._events_script(keys=keys, args=args)
        self._link.commands += 1

    async def sent(self) -> None:
        """Every event held so far is in Redis (before reading counts, and at close)."""
        task = self._events_task
        if task is not None:
            await asyncio.shield(task)
        if self._events:
            if self._events_timer is not None:
                self._events_timer.cancel()
                self._events_timer = None
            batch = list(self._events)
            self._events.clear()
            for start in range(0, len(batch), EVENTS_BATCH):
                await self._send_events(batch[start:start + EVENTS_BATCH])

    async def counts(self) -> list[tuple[str, str, str, int]]:
        await self.sent()
        rows: dict[Any, Any] = await self._link.redis.hgetall(f"{self._link.prefix}evc")
        self._link.commands += 1
        counts = []
        for field, count in rows.items():
            project, day, name = field.decode().split(_SEP, 2)
            counts.append((project, day, name, int(count)))
        return sorted(counts)

    async def prune(self, before_ms: int) -> int:
        await self.sent()
        cutoff = utc_day(before_ms)
        rows: dict[Any, Any] = await self._link.redis.hgetall(f"{self._link.prefix}evc")
        self._link.commands += 1
        old = [field for field in rows if field.decode().split(_SEP, 2)[1] < cutoff]
        if old:
            await self._link.redis.hdel(f"{self._link.prefix}evc", *old)
            self._link.commands += 1
        return sum(int(rows[field]) for field in old)
