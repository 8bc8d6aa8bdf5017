"""The one interpreter of the commands a session step hands out, shared by the runtime
(`runtime/commands.py`, which runs them) and the test harness (`enginetest/client.py`, which
keeps them for the test to settle).

A session step (`engine/session.py`) keeps what it does itself within the step: a `Dispatch`
is fed to `update` at once (through the decoder, `engine/decode.dispatched`), a browser `Effect`
becomes a frame with its time-out timer, a `CancelEffect` an `effect_cancel` frame. What leaves the step is a `RuntimeCmd`; `interpret`
hands each to its host's method by type, exhaustively (`assert_never`: a new command type is a
mypy error here until every host runs it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, assert_never

from ..core.cmds import Call, CancelTimer, Effect, StartTimer, Track

# What a session step hands out: timers, service calls, effects the runtime runs itself
# (core/cmds.RUNTIME_EFFECT_KINDS) and tracking.
RuntimeCmd = StartTimer | CancelTimer | Call[Any] | Effect | Track


class CommandHost(Protocol):
    """What runs (or, in a test, keeps) a session's commands."""

    def start_timer(self, cmd: StartTimer, now: int) -> None: ...

    def cancel_timer(self, cmd: CancelTimer) -> None: ...

    def call(self, cmd: Call[Any]) -> None: ...

    def run_effect(self, cmd: Effect) -> None: ...

    def track(self, cmd: Track, now: int, index: int) -> None: ...


def interpret(cmds: Sequence[RuntimeCmd], host: CommandHost, now: int) -> None:
    """Hand every command to `host`, in order (`index`: a command's place in its batch)."""
    for index, cmd in enumerate(cmds):
        match cmd:
            case StartTimer():
                host.start_timer(cmd, now)
            case CancelTimer():
                host.cancel_timer(cmd)
            case Call():
                host.call(cmd)
            case Effect():
                host.run_effect(cmd)
            case Track():
                host.track(cmd, now, index)
            case _:
                assert_never(cmd)
