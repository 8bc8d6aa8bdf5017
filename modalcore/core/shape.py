"""The one shape of a slice, and the table the engine assembles from a list of them.

A slice module ends with `SLICE = Slice(name, (On(X, on_x), ...), ...)`: its message handlers (a
call's or an effect's result is a message like any other: the `Reply` / `EffectReply` subclass
the command named, typed at the engine's edge by `engine/replies.py`), and optionally an
observer run after every message and guards on a client's input (`Guard(X, refuse_x)`). Nothing
registers itself at import time: `engine/update.py` lists the slices and builds the production
`Table` (its message name table included, which replay decodes recordings with); a test builds its
own with `Table.of`.

A registration is typed by its message: `On(X, on_x)` passes mypy only when `on_x` takes an `X`
(or a type `X` is a subclass of), so a handler registered under the wrong message fails the type
check (tests/engine/test_handler_types.py), not a session.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from .cmds import CallSettled, EffectSettled
from .msg import MessageTypes, Msg

if TYPE_CHECKING:
    from ..slices.model import Model, Step

log = logging.getLogger(__name__)

M = TypeVar("M", bound=Msg)
# What the table holds once `On` / `Guard` checked a registration: the table calls a handler only
# with a message of the type it was registered under (`Table.route`), so `Any` here is that key.
Handler = Callable[["Model", Any, int], "Step"]
Refusal = Callable[["Model", Any], "str | None"]
# (model before, model after, now): reacts to a change of state rather than to one message
Observer = Callable[["Model", "Model", int], "Step"]
# The raw result envelopes the engine's edge turns into typed replies (`engine/replies.py`): no
# slice handles them, yet recordings and stored timers name them.
ENVELOPES: tuple[type[Msg], ...] = (CallSettled, EffectSettled)


class On:
    """A message type and its handler `(model, msg, now) -> Step`, typed together: the handler
    takes the message type it is registered under."""

    __slots__ = ("msg_type", "handler")

    def __init__(self, msg_type: type[M], handler: Callable[[Model, M, int], Step]) -> None:
        self.msg_type: type[Msg] = msg_type
        self.handler: Handler = handler


class Guard:
    """A message type and its guard `(model, a client's input) -> reason | None`, typed together:
    a reason refuses the input (typed error, nothing changes); None lets it in."""

    __slots__ = ("msg_type", "refuse")

    def __init__(self, msg_type: type[M], refuse: Callable[[Model, M], str | None]) -> None:
        self.msg_type: type[Msg] = msg_type
        self.refuse: Refusal = refuse


@dataclass(frozen=True)
class Slice:
    name: str
    handlers: tuple[On, ...] = ()
    observe: Observer | None = None
    guards: tuple[Guard, ...] = ()


_V = TypeVar("_V")


def _merge(kind: str, tables: list[tuple[str, list[tuple[type[Msg], _V]]]]) -> dict[type[Msg], _V]:
    merged: dict[type[Msg], _V] = {}
    owner: dict[type[Msg], str] = {}
    for slice_name, table in tables:
        for key, handler in table:
            if key in merged:
                raise TypeError(f"{kind} {key.__name__} is handled by {owner[key]} and {slice_name}")
            merged[key] = handler
            owner[key] = slice_name
    return merged


@dataclass(frozen=True)
class Table:
    """Message type -> handler (results included: they are typed messages), the observers in order, and the
    guards run before a client's input is applied (rules/limits.py; PROTOCOL.md, "Bounds")."""

    handlers: Mapping[type[Msg], Handler]
    observers: tuple[Observer, ...]
    guards: Mapping[type[Msg], Refusal] = field(default_factory=dict)
    messages: MessageTypes = field(default_factory=MessageTypes)  # name -> type, for decoding

    @classmethod
    def of(cls, *slices: Slice) -> Table:
        handlers = _merge("message", [(s.name, [(on.msg_type, on.handler) for on in s.handlers]) for s in slices])
        guards = _merge("guard of", [(s.name, [(g.msg_type, g.refuse) for g in s.guards]) for s in slices])
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
