"""`update(model, msg, now) -> (model, commands)`: one table from message type to handler.

Each slice module exports `HANDLERS`; they are merged here. A message no slice handles is
logged and leaves the model as it was.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ..slices import account_ui, connection, siwx, connectors, disconnect, modal, navigation, snack, switching, theme
from ..slices import directory as directory_slice
from ..slices import history as history_slice
from ..slices import nfts as nfts_slice
from ..slices import send as send_slice
from . import results
from .model import Model, Step
from .msg import Msg

log = logging.getLogger(__name__)

Handler = Callable[[Model, Any, int], Step]

_TABLES: list[dict[Any, Any]] = [
    account_ui.HANDLERS,
    connection.HANDLERS,
    siwx.HANDLERS,
    disconnect.HANDLERS,
    switching.HANDLERS,
    results.HANDLERS,
    connectors.HANDLERS,
    modal.HANDLERS,
    navigation.HANDLERS,
    snack.HANDLERS,
    theme.HANDLERS,
    send_slice.HANDLERS,
    history_slice.HANDLERS,
    directory_slice.HANDLERS,
]


def _merge() -> dict[type[Msg], Handler]:
    merged: dict[type[Msg], Handler] = {}
    for table in _TABLES:
        for msg_type, handler in table.items():
            if msg_type in merged:
                raise TypeError(f"{msg_type.__name__} is handled twice")
            merged[msg_type] = handler
    return merged


HANDLERS = _merge()

# Run after every handled message with (before, after, now): slices that react to a change of
# state rather than to one message (the directory fetches what a view needs once it is in sight).
Observer = Callable[[Model, Model, int], Step]
OBSERVERS: list[Observer] = [directory_slice.observe, nfts_slice.observe]


# Run before a client's input (an intent, a wallet event) is applied, with (model, msg): a reason
# refuses the input with a typed error and the model stays as it was. Slices bound here what
# accumulates across inputs (rules/limits.py; PROTOCOL.md, "Bounds").
Guard = Callable[[Model, Any], str | None]
GUARDS: dict[type[Msg], Guard] = {**theme.GUARDS, **connectors.GUARDS}


def refusal(model: Model, msg: Msg) -> str | None:
    """Why `msg`, a client's input, must not be applied to `model`; None when it may."""
    guard = GUARDS.get(type(msg))
    return guard(model, msg) if guard is not None else None


def register(table: dict[Any, Any]) -> None:
    """Add a slice's handlers (used by slices that import the engine, to avoid cycles)."""
    for msg_type, handler in table.items():
        if msg_type in HANDLERS and HANDLERS[msg_type] is not handler:
            raise TypeError(f"{msg_type.__name__} is handled twice")
        HANDLERS[msg_type] = handler


def update(model: Model, msg: Msg, now: int) -> Step:
    handler = HANDLERS.get(type(msg))
    if handler is None:
        log.warning("no slice handles %s", type(msg).__name__)
        return model, []
    after, cmds = handler(model, msg, now)
    for observe in OBSERVERS:
        after, more = observe(model, after, now)
        if more:
            cmds = [*cmds, *more]
    return after, cmds
