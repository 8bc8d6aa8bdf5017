"""The self-hosted default: tracking events kept in the engine's own store (counts per event
and per day on the operator page). Error telemetry passes the same gate as the hosted one."""

from __future__ import annotations

import asyncio
import logging

from ..audit.chain import canonical
from ..runtime.analytics import TrackedEvent
from ..runtime.clock import Clock
from ..store.base import SessionStore, StoredEvent
from .gate import TelemetryGate

log = logging.getLogger(__name__)


class LocalAnalyticsSink:
    def __init__(self, store: SessionStore, clock: Clock, *, test: bool = False) -> None:
        self.store = store
        self.gate = TelemetryGate(clock, test)
        self._writes: set[asyncio.Task[None]] = set()

    def track(self, event: TrackedEvent) -> None:
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
        task = asyncio.get_running_loop().create_task(self._write(stored))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _write(self, event: StoredEvent) -> None:
        try:
            await self.store.events_add(event)
        except Exception:
            log.exception("analytics: keeping %s failed", event.event)

    async def flush(self) -> None:
        while self._writes:
            await asyncio.gather(*list(self._writes), return_exceptions=True)
