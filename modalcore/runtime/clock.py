"""The clocks (the interface is `ports.clock.Clock`): the only place the runtime reads the time
or waits.

`RealClock` uses the wall clock (milliseconds since the epoch, so persisted times survive a
restart) and the running event loop's timers. `FakeClock` moves only when a test calls
`advance(ms)`, firing due callbacks in order; tests never sleep to wait for a timer.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable

from ..ports.clock import TimerHandle


class RealClock:
    """Wall-clock time; callbacks run on the event loop that is running when they are set."""

    def now_ms(self) -> int:
        return int(time.time() * 1000)

    def call_later(self, ms: int, fn: Callable[[], None]) -> TimerHandle:
        loop = asyncio.get_running_loop()
        return loop.call_later(max(0, ms) / 1000, fn)


class _FakeHandle:
    __slots__ = ("due", "order", "fn", "cancelled")

    def __init__(self, due: int, order: int, fn: Callable[[], None]) -> None:
        self.due = due
        self.order = order
        self.fn = fn
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True

    def __lt__(self, other: _FakeHandle) -> bool:
        return (self.due, self.order) < (other.due, other.order)


class FakeClock:
    """A clock that moves only on `advance`; due callbacks fire in (due time, set order)."""

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self._now = start_ms
        self._heap: list[_FakeHandle] = []
        self._order = itertools.count()

    def now_ms(self) -> int:
        return self._now

    def call_later(self, ms: int, fn: Callable[[], None]) -> TimerHandle:
        handle = _FakeHandle(self._now + max(0, ms), next(self._order), fn)
        heapq.heappush(self._heap, handle)
        return handle

    def advance(self, ms: int) -> int:
        """Move time forward by `ms`, running every callback that falls due on the way.

        A callback sees `now_ms()` equal to its own due time; callbacks it sets that fall due
        within the window fire too. Returns how many callbacks ran.
        """
        if ms < 0:
            raise ValueError("a clock does not go back")
        target = self._now + ms
        fired = 0
        while self._heap and self._heap[0].due <= target:
            handle = heapq.heappop(self._heap)
            if handle.cancelled:
                continue
            self._now = max(self._now, handle.due)
            handle.fn()
            fired += 1
        self._now = target
        return fired

    def advance_to(self, ms: int) -> int:
        """Move time forward to `ms` (never back), as `advance` does."""
        return self.advance(max(0, ms - self._now))

    def pending(self) -> int:
        """How many callbacks are set and not cancelled."""
        return sum(1 for handle in self._heap if not handle.cancelled)
