"""The harness's table: the engine's slices and flows plus the harness's own message, and a
test's slices; nothing a test adds reaches the production table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.msg import Msg
from ..core.shape import On, Slice, Table
from ..engine.update import FLOWS, SLICES
from ..slices.model import Model, Step


@dataclass(frozen=True)
class HarnessStepApplied(Msg):
    """Runs `step(model)` as if it were a message handler (not recordable: holds a function)."""

    step: Callable[[Model], Step] = field(compare=False)


def _apply_step(model: Model, msg: HarnessStepApplied, now: int) -> Step:
    return msg.step(model)


HARNESS = Slice("harness", (On(HarnessStepApplied, _apply_step),))


def table_with(*extra: Slice) -> Table:
    """The engine's slices and flows, the harness's own message and `extra` (a test's slices):
    a new table, so nothing a test adds reaches the production one."""
    return Table.of(*SLICES, *FLOWS, HARNESS, *extra)


HARNESS_TABLE = table_with()
