"""The clock interface: the only way the runtime and its services read the time or wait.

Implementations are `runtime.clock.RealClock` (wall time, the event loop's timers) and
`runtime.clock.FakeClock` (moves only when a test advances it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now_ms(self) -> int: ...

    def call_later(self, ms: int, fn: Callable[[], None]) -> TimerHandle: ...
