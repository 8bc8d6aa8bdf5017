"""The snackbar (behaviour.md §4, "Snack"; behaviour.md §8 snack messages)."""

from __future__ import annotations

from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING, Literal

from ..core.cmds import CancelTimer, Cmd, StartTimer
from ..core.shape import On, Slice
from ..core.msg import Msg

if TYPE_CHECKING:
    from .model import Model, Step

RESHOW_DELAY_MS = 150
AUTO_CLOSE_MS = 2500

Variant = Literal["success", "error", "loading"]


@dataclass(frozen=True)
class SnackState:
    message: str = ""
    variant: Variant = "success"
    svg: str | None = None
    open: bool = False
    auto_close: bool = True


@dataclass(frozen=True)
class SnackReshowDue(Msg):
    message: str
    variant: Variant
    auto_close: bool


@dataclass(frozen=True)
class SnackAutoCloseDue(Msg):
    pass


@dataclass(frozen=True)
class PressedSnackbar(Msg):
    pass


def show(model: Model, message: str, variant: Variant = "success", *, auto_close: bool = True) -> Step:
    """Show a message; when one is already open, close it and show the new one after 150 ms."""
    if model.snack.open:
        closed = replace(model.snack, open=False)
        return replace(model, snack=closed), [
            CancelTimer("snack-auto-close"),
            StartTimer("snack-reshow", RESHOW_DELAY_MS, SnackReshowDue(message, variant, auto_close)),
        ]
    snack = SnackState(message=message, variant=variant, open=True, auto_close=auto_close)
    cmds: list[Cmd] = [CancelTimer("snack-reshow")]
    if auto_close:
        cmds.append(StartTimer("snack-auto-close", AUTO_CLOSE_MS, SnackAutoCloseDue()))
    else:
        cmds.append(CancelTimer("snack-auto-close"))
    return replace(model, snack=snack), cmds


def show_error(model: Model, message: str) -> Step:
    return show(model, message, "error")


def show_loading(model: Model, message: str) -> Step:
    return show(model, message, "loading", auto_close=False)


def hide(model: Model) -> Step:
    return replace(model, snack=SnackState()), [
        CancelTimer("snack-reshow"),
        CancelTimer("snack-auto-close"),
    ]


def on_reshow_due(model: Model, msg: SnackReshowDue, now: int) -> Step:
    snack = SnackState(message=msg.message, variant=msg.variant, open=True, auto_close=msg.auto_close)
    cmds: list[Cmd] = []
    if msg.auto_close:
        cmds.append(StartTimer("snack-auto-close", AUTO_CLOSE_MS, SnackAutoCloseDue()))
    return replace(model, snack=snack), cmds


def on_auto_close_due(model: Model, msg: SnackAutoCloseDue, now: int) -> Step:
    if not model.snack.auto_close:
        return model, []
    return hide(model)


def on_pressed(model: Model, msg: PressedSnackbar, now: int) -> Step:
    return hide(model)


HANDLERS = (
    On(SnackReshowDue, on_reshow_due),
    On(SnackAutoCloseDue, on_auto_close_due),
    On(PressedSnackbar, on_pressed),
)

SLICE = Slice("snack", HANDLERS)
