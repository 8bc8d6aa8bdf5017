"""The self-hosted default: tracking events kept in the engine's own store (counts per event
and per day on the operator page) for `retention_days` (older days are forgotten once a day,
and by `python -m modalcore analytics prune`). Error telemetry passes the same gate as the
hosted one."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from ..ledger.chain import canonical
from ..ports.analytics import TrackedEvent
from ..ports.clock import Clock
from ..store.base import SessionStore, StoredEvent
from .gate import TelemetryGate

log = logging.getLogger(__name__)


PRUNE_EVERY_MS = 86_400_000  # the engine forgets expired days once a day (on the next event)


class LocalAnalyticsSink:
    def __init__(self, store: SessionStore, clock: Clock, *, test: bool = False,
                 retention_days: int = 90) -> None:
        self.store = store
        self.clock = clock
        self.gate = TelemetryGate(clock, test)
        self.retention_ms = retention_days * 86_400_000
        self._pruned_at: int | None = None
        self._writes: set[asyncio.Task[None]] = set()

    def track(self, event: TrackedEvent) -> None:
        now = self.clock.now_ms()
        if self._pruned_at is None or now - self._pruned_at >= PRUNE_EVERY_MS:
            self._pruned_at = now
            self._spawn(self._prune(now - self.retention_ms))
        if event.kind == "error" and not self.gate.allow():
            return
        props = dict(event.props)
        if event.address:
            props["address"] = event.address
        try:
            data = canonical(props)
        except (TypeError, ValueError):
            data = canonical({"unserialisable": True})
        stored = StoredEvent(event.event_id, event.project_id, event.session_id, event.event,
                             event.at, data)
        try:
            if self.store.analytics.add_nowait(stored):
                return  # kept (in memory, or held for the store's next commit): no task needed
        except Exception:
            log.exception("analytics: keeping %s failed", stored.event)
            return
        self._spawn(self._write(stored))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _prune(self, before_ms: int) -> None:
        try:
            forgotten = await self.store.analytics.prune(before_ms)
        except Exception:
            log.exception("analytics: pruning the kept events failed")
            return
        if forgotten:
            log.info("analytics: %d events past the retention forgotten", forgotten)

    async def _write(self, event: StoredEvent) -> None:
        try:
            await self.store.analytics.add(event)
        except Exception:
            log.exception("analytics: keeping %s failed", event.event)

    async def flush(self) -> None:
        while self._writes:
            await asyncio.gather(*list(self._writes), return_exceptions=True)
