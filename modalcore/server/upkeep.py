"""The hub's timers and background tasks (a part of server/hub.py): every hour saved sessions idle
past the store's TTL are dropped, every `idle_compact_s` live sessions whose tree went unused drop
it, and the tasks the hub starts (the routing listener, WalletConnect sessions forgotten) are held
until they end or the engine stops."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from ..ports.clock import Clock, TimerHandle
from ..runtime.runner import SessionRunner
from ..store.base import SessionStore

log = logging.getLogger(__name__)

SWEEP_EVERY_MS = 3600 * 1000


class Upkeep:
    """`runners` is the hub's map of live sessions (read, never changed here)."""

    def __init__(self, *, clock: Clock, store: SessionStore, runners: dict[str, SessionRunner],
                 compact_every_s: float) -> None:
        self._clock = clock
        self._store = store
        self._runners = runners
        self._compact_every_ms = int(compact_every_s * 1000)
        self._sweep_handle: TimerHandle | None = None
        self._compact_handle: TimerHandle | None = None
        self._tasks: set[asyncio.Task[object]] = set()

    def spawn(self, work: Coroutine[Any, Any, object]) -> None:
        """Run `work` in the background; `close` cancels it if it has not ended."""
        task: asyncio.Task[object] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def start(self) -> None:
        self._arm_sweep()
        self._arm_compact()

    def _arm_sweep(self) -> None:
        self._sweep_handle = self._clock.call_later(SWEEP_EVERY_MS, self._sweep)

    def _sweep(self) -> None:
        self.spawn(self.sweep())
        self._arm_sweep()

    def _arm_compact(self) -> None:
        self._compact_handle = self._clock.call_later(self._compact_every_ms, self._compact_idle)

    def _compact_idle(self) -> None:
        self.compact_idle()
        self._arm_compact()

    def compact_idle(self) -> int:
        """Live sessions whose tree went unused since the previous call drop it (drawn again,
        identical, on their next input); how many did now. Synchronous, so it never runs in
        the middle of a session's update."""
        return sum(runner.session.compact_if_unused() for runner in self._runners.values())

    async def sweep(self) -> int:
        """Drop saved sessions idle past the store's TTL (live ones are touched on save)."""
        try:
            dropped = await self._store.expire(self._clock.now_ms())
        except Exception:
            log.exception("expiring sessions failed")
            return 0
        if dropped:
            log.info("expired %d idle sessions", dropped)
        return dropped

    def stop_timers(self) -> None:
        for handle in (self._sweep_handle, self._compact_handle):
            if handle is not None:
                handle.cancel()

    async def cancel_tasks(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
