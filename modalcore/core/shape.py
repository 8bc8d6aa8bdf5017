"""The one shape of a slice, and the table the engine assembles from a list of them.

A slice module ends with `SLICE = Slice(name, handlers=..., ...)`: its message handlers, the
handlers of the effect and call results it asked for (by purpose name), and optionally an
observer run after every message. Nothing registers itself at import time: `engine/update.py`
lists the slices and builds the production `Table`; a test builds its own with `Table.of`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .cmds import CallSettled, EffectSettled
from .msg import Msg

if TYPE_CHECKING:
    from ..slices.model import Model, Step

log = logging.getLogger(__name__)

Handler = Callable[["Model", Any, int], "Step"]
# (model, EffectSettled | CallSettled, now, the purpose's parameter)
ResultHandler = Callable[["Model", Any, int, str], "Step"]
# (model before, model after, now): reacts to a change of state rather than to one message
Observer = Callable[["Model", "Model", int], "Step"]
# (model, a client's input): a reason refuses the input (typed error, nothing changes); None lets it in
Guard = Callable[["Model", Any], "str | None"]


@dataclass(frozen=True)
class Slice:
    name: str
    handlers: Mapping[type[Msg], Handler] = field(default_factory=dict)
    effect_results: Mapping[str, ResultHandler] = field(default_factory=dict)
    call_results: Mapping[str, ResultHandler] = field(default_factory=dict)
    observe: Observer | None = None
    guards: Mapping[type[Msg], Guard] = field(default_factory=dict)


def purpose(name: str, param: str = "") -> str:
    """The purpose a result is routed by: `"<name>|<param>"`."""
    return f"{name}|{param}" if param else name


def _merge(kind: str, tables: list[tuple[str, Mapping[Any, Any]]]) -> dict[Any, Any]:
    merged: dict[Any, Any] = {}
    owner: dict[Any, str] = {}
    for slice_name, table in tables:
        for key, handler in table.items():
            if key in merged:
                label = getattr(key, "__name__", key)
                raise TypeError(f"{kind} {label} is handled by {owner[key]} and {slice_name}")
            merged[key] = handler
            owner[key] = slice_name
    return merged


@dataclass(frozen=True)
class Table:
    """Message type -> handler, purpose name -> result handler, the observers in order, and the
    guards run before a client's input is applied (rules/limits.py; PROTOCOL.md, "Bounds")."""

    handlers: Mapping[type[Msg], Handler]
    effect_results: Mapping[str, ResultHandler]
    call_results: Mapping[str, ResultHandler]
    observers: tuple[Observer, ...]
    guards: Mapping[type[Msg], Guard] = field(default_factory=dict)

    @classmethod
    def of(cls, *slices: Slice) -> Table:
        return cls(
            handlers=MappingProxyType(_merge("message", [(s.name, s.handlers) for s in slices])),
            effect_results=MappingProxyType(_merge("effect result", [(s.name, s.effect_results) for s in slices])),
            call_results=MappingProxyType(_merge("call result", [(s.name, s.call_results) for s in slices])),
            observers=tuple(s.observe for s in slices if s.observe is not None),
            guards=MappingProxyType(_merge("guard of", [(s.name, s.guards) for s in slices])),
        )

    def route(self, model: Model, msg: Msg, now: int) -> Step | None:
        """The step for `msg`, or None when no slice handles it."""
        handler = self.handlers.get(type(msg))
        if handler is not None:
            return handler(model, msg, now)
        if isinstance(msg, EffectSettled):
            return self._result(self.effect_results, "effect", model, msg, now)
        if isinstance(msg, CallSettled):
            return self._result(self.call_results, "call", model, msg, now)
        return None

    @staticmethod
    def _result(table: Mapping[str, ResultHandler], kind: str, model: Model,
                msg: EffectSettled | CallSettled, now: int) -> Step:
        name, _, param = msg.purpose.partition("|")
        result_handler = table.get(name)
        if result_handler is None:
            log.warning("no slice handles %s results for %s", kind, name)
            return model, []
        return result_handler(model, msg, now, param)
