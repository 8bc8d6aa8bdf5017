"""Routing of command results: `EffectSettled` and `CallSettled` carry a purpose
`"<name>|<param>"`; the slice that asked registers a handler for `<name>`."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .cmds import CallSettled, EffectSettled

if TYPE_CHECKING:
    from .model import Model, Step

log = logging.getLogger(__name__)

ResultHandler = Callable[["Model", Any, int, str], "Step"]

EFFECT_HANDLERS: dict[str, ResultHandler] = {}
CALL_HANDLERS: dict[str, ResultHandler] = {}


def purpose(name: str, param: str = "") -> str:
    return f"{name}|{param}" if param else name


def _split(value: str) -> tuple[str, str]:
    name, _, param = value.partition("|")
    return name, param


def on_effect_settled(model: Model, msg: EffectSettled, now: int) -> Step:
    name, param = _split(msg.purpose)
    handler = EFFECT_HANDLERS.get(name)
    if handler is None:
        log.warning("no slice handles effect results for %s", name)
        return model, []
    return handler(model, msg, now, param)


def on_call_settled(model: Model, msg: CallSettled, now: int) -> Step:
    name, param = _split(msg.purpose)
    handler = CALL_HANDLERS.get(name)
    if handler is None:
        log.warning("no slice handles call results for %s", name)
        return model, []
    return handler(model, msg, now, param)


HANDLERS = {EffectSettled: on_effect_settled, CallSettled: on_call_settled}
