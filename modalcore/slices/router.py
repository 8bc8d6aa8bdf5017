"""The view stack and the transaction stack (SPEC §2, "Stack rules")."""

from __future__ import annotations

from dataclasses import dataclass
from ..engine.evolve import replace
from typing import TYPE_CHECKING

from ..engine.cmds import Cmd, Dispatch
from ..engine.msg import Msg

if TYPE_CHECKING:
    from ..engine.model import Model, Step

# The views the router can show: each has a module in `views/` (VIEW_MODULES, checked by
# tests/engine/test_view_registry.py). SPEC §2 names more (ConnectingWalletConnect,
# ConnectingSiwe, ConnectingFarcaster, RegisterAccountName, RegisterAccountNameSuccess,
# ApproveTransaction, Swap); they join this list with their view module, not before. The
# stack and closing rules that name them (`pop_tx`, `modal.closing_allowed`) are tested on
# the model (tests/engine/test_transaction_stack.py, test_closing_rules.py).
VIEWS = (
    "Connect",
    "Account",
    "AllWallets",
    "ConnectingWalletConnectBasic",
    "ConnectingExternal",
    "UnsupportedChain",
    "SIWXSignMessage",
    "Networks",
    "WhatIsAWallet",
    "WalletSend",
    "WalletSendPreview",
    "WalletReceive",
    "WalletPage",
)


@dataclass(frozen=True)
class Route:
    view: str
    param: str = ""


@dataclass(frozen=True)
class TxEntry:
    """What happens after a transaction: go back, replace, or reset to `view`.

    The callbacks name messages without fields, dispatched on success or cancel.
    """

    view: str | None = None
    go_back: bool = False
    replace: bool = False
    on_success: str | None = None
    on_cancel: str | None = None


@dataclass(frozen=True)
class RouterState:
    history: tuple[Route, ...] = (Route("Connect"),)
    tx_stack: tuple[TxEntry, ...] = ()

    @property
    def view(self) -> str:
        return self.history[-1].view if self.history else "Connect"

    @property
    def param(self) -> str:
        return self.history[-1].param if self.history else ""

    def contains(self, view: str) -> bool:
        return any(route.view == view for route in self.history)


def push(state: RouterState, view: str, param: str = "") -> RouterState:
    if state.history and state.view == view:
        return state
    return replace(state, history=(*state.history, Route(view, param)))


def reset(state: RouterState, view: str, param: str = "") -> RouterState:
    return replace(state, history=(Route(view, param),))


def replace_top(state: RouterState, view: str, param: str = "") -> RouterState:
    if state.history and state.view == view:
        return state
    return replace(state, history=(*state.history[:-1], Route(view, param)))


def back_to_index(state: RouterState, index: int) -> RouterState:
    return replace(state, history=state.history[: index + 1])


def go_back(model: Model) -> Step:
    """Pop one entry; with one entry left or UnsupportedChain in the history, close instead."""
    from . import modal

    router = model.router
    if len(router.history) > 1 and not router.contains("UnsupportedChain"):
        return replace(model, router=replace(router, history=router.history[:-1])), []
    return modal.close(model)


def push_tx(state: RouterState, entry: TxEntry) -> RouterState:
    return replace(state, tx_stack=(*state.tx_stack, entry))


def pop_tx(model: Model, *, cancel: bool = False) -> Step:
    from . import modal

    router = model.router
    if not router.tx_stack:
        return model, []
    entry = router.tx_stack[-1]
    model = replace(model, router=replace(router, tx_stack=router.tx_stack[:-1]))
    if cancel:
        model, back = go_back(model)
        return _dispatch_callback(model, back, entry.on_cancel)
    cmds: list[Cmd] = []
    if entry.go_back:
        model, cmds = go_back(model)
    elif entry.replace:
        siwe_index = next(
            (i for i, route in enumerate(model.router.history) if route.view == "ConnectingSiwe"), -1
        )
        if siwe_index > 0:
            model = replace(model, router=back_to_index(model.router, siwe_index - 1))
        else:
            model, cmds = modal.close(model, force=True)
            model = replace(model, router=replace(model.router, history=()))
    elif entry.view:
        model = replace(model, router=reset(model.router, entry.view))
    return _dispatch_callback(model, cmds, entry.on_success)


def _dispatch_callback(model: Model, cmds: list[Cmd], callback: str | None) -> Step:
    if callback is None:
        return model, cmds
    return model, [*cmds, Dispatch(Msg.registry[callback]())]
