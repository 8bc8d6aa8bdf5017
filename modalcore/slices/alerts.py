"""Alerts at the top of the modal (behaviour.md §8, "Alerts"): the hosted analytics API answering 403
means this page's origin is not on the project's allowlist: 'Invalid App Configuration',
shown once per session, until the visitor dismisses it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..core.evolve import replace
from ..core.msg import Msg
from ..core.shape import On, Slice

if TYPE_CHECKING:
    from .model import Model, Step

AlertKind = Literal["invalid_app_configuration"]


@dataclass(frozen=True)
class AlertState:
    kind: AlertKind | None = None  # the alert drawn, None when none is
    shown: tuple[AlertKind, ...] = ()  # alerts already shown in this session (each shows once)


@dataclass(frozen=True)
class AnalyticsForbidden(Msg):
    """The runtime's analytics sink got HTTP 403 for an event of this session."""


@dataclass(frozen=True)
class PressedDismissAlert(Msg):
    pass


def show_once(model: Model, kind: AlertKind) -> Step:
    if kind in model.alert.shown:
        return model, []
    return replace(model, alert=AlertState(kind=kind, shown=(*model.alert.shown, kind))), []


def on_analytics_forbidden(model: Model, msg: AnalyticsForbidden, now: int) -> Step:
    return show_once(model, "invalid_app_configuration")


def on_dismiss(model: Model, msg: PressedDismissAlert, now: int) -> Step:
    if model.alert.kind is None:
        return model, []
    return replace(model, alert=replace(model.alert, kind=None)), []


HANDLERS = (
    On(AnalyticsForbidden, on_analytics_forbidden),
    On(PressedDismissAlert, on_dismiss),
)

SLICE = Slice("alerts", HANDLERS)
