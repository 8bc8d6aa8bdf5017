"""The harness's command host (engine/interpret.py's `CommandHost`): timers run on the harness's
fake clock, every other command is kept for the test to settle."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.cmds import Call, CancelTimer, Effect, StartTimer, Track
from ..core.msg import Msg
from ..engine.interpret import RuntimeCmd


@dataclass
class Timer:
    due: int
    order: int
    msg: Msg


class FakeCommandHost:
    def __init__(self) -> None:
        self.cmds: list[RuntimeCmd] = []  # commands other than timers, in order, until settled
        self.timers: dict[str, Timer] = {}
        self._order = 0

    def next_due(self, until: int) -> Timer | None:
        """The earliest timer due at `until` or before, taken off; None when none is."""
        due = [(t.due, t.order, key) for key, t in self.timers.items() if t.due <= until]
        if not due:
            return None
        return self.timers.pop(min(due)[2])

    def timer_due(self, key: str) -> int | None:
        timer = self.timers.get(key)
        return None if timer is None else timer.due

    def start_timer(self, cmd: StartTimer, now: int) -> None:
        self._order += 1
        self.timers[cmd.key] = Timer(now + cmd.delay_ms, self._order, cmd.msg)

    def cancel_timer(self, cmd: CancelTimer) -> None:
        self.timers.pop(cmd.key, None)

    def call(self, cmd: Call[Any]) -> None:
        self.cmds.append(cmd)

    def run_effect(self, cmd: Effect) -> None:
        self.cmds.append(cmd)

    def track(self, cmd: Track, now: int, index: int) -> None:
        self.cmds.append(cmd)
