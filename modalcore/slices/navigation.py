"""Messages from the header, the overlay and the host API that move between views."""

from __future__ import annotations

from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING

from ..core.shape import On, Slice
from ..core.msg import Msg
from . import modal, router, stack

if TYPE_CHECKING:
    from .model import Model, Step


@dataclass(frozen=True)
class PressedBack(Msg):
    pass


@dataclass(frozen=True)
class PressedClose(Msg):
    pass


@dataclass(frozen=True)
class PressedNavigate(Msg):
    view: str
    param: str = ""


@dataclass(frozen=True)
class HostOpened(Msg):
    view: str | None = None


@dataclass(frozen=True)
class HostClosed(Msg):
    pass


def on_back(model: Model, msg: PressedBack, now: int) -> Step:
    return stack.go_back(model)


def on_close(model: Model, msg: PressedClose, now: int) -> Step:
    return modal.close(model)


def on_navigate(model: Model, msg: PressedNavigate, now: int) -> Step:
    if msg.view not in router.VIEWS:
        return model, []
    return replace(model, router=router.push(model.router, msg.view, msg.param)), []


def on_host_opened(model: Model, msg: HostOpened, now: int) -> Step:
    return modal.open_modal(model, msg.view)


def on_host_closed(model: Model, msg: HostClosed, now: int) -> Step:
    return modal.close(model)


HANDLERS = (
    On(PressedBack, on_back),
    On(PressedClose, on_close),
    On(PressedNavigate, on_navigate),
    On(HostOpened, on_host_opened),
    On(HostClosed, on_host_closed),
)

SLICE = Slice("navigation", HANDLERS)
