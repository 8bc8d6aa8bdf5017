"""The one shape of a slice, and the table the engine assembles from a list of them.

A slice module ends with `SLICE = Slice(name, handlers=..., ...)`: its message handlers (a
call's or an effect's result is a message like any other: the `Reply` / `EffectReply` subclass
the command named, typed at the engine's edge by `engine/replies.py`), and optionally an
observer run after every message and guards on a client's input. Nothing registers itself at
import time: `engine/update.py` lists the slices and builds the production `Table` (its message
name table included, which replay decodes recordings with); a test builds its own with `Table.of`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .cmds import CallSettled, EffectSettled
from .msg import MessageTypes, Msg

if TYPE_CHECKING:
    from ..slices.model import Model, Step

log = logging.getLogger(__name__)

Handler = Callable[["Model", Any, int], "Step"]
# (model before, model after, now): reacts to a change of state rather than to one message
Observer = Callable[["Model", "Model", int], "Step"]
# (model, a client's input): a reason refuses the input (typed error, nothing changes); None lets it in
Guard = Callable[["Model", Any], "str | None"]
# The raw result envelopes the engine's edge turns into typed replies (`engine/replies.py`): no
# slice handles them, yet recordings and stored timers name them.
ENVELOPES: tuple[type[Msg], ...] = (CallSettled, EffectSettled)


@dataclass(frozen=True)
class Slice:
    name: str
    handlers: Mapping[type[Msg], Handler] = field(default_factory=dict)
    observe: Observer | None = None
    guards: Mapping[type[Msg], Guard] = field(default_factory=dict)


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
    """Message type -> handler (results included: they are typed messages), the observers in order, and the
    guards run before a client's input is applied (rules/limits.py; PROTOCOL.md, "Bounds")."""

    handlers: Mapping[type[Msg], Handler]
    observers: tuple[Observer, ...]
    guards: Mapping[type[Msg], Guard] = field(default_factory=dict)
    messages: MessageTypes = field(default_factory=MessageTypes)  # name -> type, for decoding

    @classmethod
    def of(cls, *slices: Slice) -> Table:
        handlers = _merge("message", [(s.name, s.handlers) for s in slices])
        guards = _merge("guard of", [(s.name, s.guards) for s in slices])
        return cls(
            handlers=MappingProxyType(handlers),
            observers=tuple(s.observe for s in slices if s.observe is not None),
            guards=MappingProxyType(guards),
            messages=MessageTypes.of([*ENVELOPES, *handlers, *guards]),
        )

    def route(self, model: Model, msg: Msg, now: int) -> Step | None:
        """The step for `msg`, or None when no slice handles it."""
        handler = self.handlers.get(type(msg))
        if handler is not None:
            return handler(model, msg, now)
        return None
