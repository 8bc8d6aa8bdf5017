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


def _route(table: dict[str, ResultHandler], kind: str, model: Model, msg: EffectSettled | CallSettled,
           now: int) -> Step:
    name, param = _split(msg.purpose)
    handler = table.get(name)
    if handler is None:
        log.warning("no slice handles %s results for %s", kind, name)
        return model, []
    return handler(model, msg, now, param)


def on_effect_settled(model: Model, msg: EffectSettled, now: int) -> Step:
    return _route(EFFECT_HANDLERS, "effect", model, msg, now)


def on_call_settled(model: Model, msg: CallSettled, now: int) -> Step:
    return _route(CALL_HANDLERS, "call", model, msg, now)


HANDLERS = {EffectSettled: on_effect_settled, CallSettled: on_call_settled}
