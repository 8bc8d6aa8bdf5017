"""The view stack and the transaction stack (behaviour.md §2, "Stack rules")."""

from __future__ import annotations

from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from .model import Model, Step

# The views the router can show: each has a module in `views/` (VIEW_MODULES, checked by
# tests/engine/test_view_registry.py). behaviour.md §2 names more (ConnectingSiwe);
# they join this list with their view module, not before. The stack and
# closing rules that name them (`pop_tx`, `modal.closing_allowed`) are tested on the model
# (tests/engine/test_transaction_stack.py, test_closing_rules.py).
VIEWS = (
    "Connect",
    "Account",
    "AllWallets",
    "ConnectingWalletConnectBasic",
    "ConnectingExternal",
    "ConnectingWalletConnect",
    "UnsupportedChain",
    "SIWXSignMessage",
    "Networks",
    "WhatIsAWallet",
    "WalletSend",
    "WalletSendPreview",
    "WalletReceive",
    "WalletPage",
    "RegisterAccountName",
    "RegisterAccountNameSuccess",
    "Swap",
    "SwapPreview",
    "OnRamp",
    "EmailVerifyOtp",
    "ApproveTransaction",
    "ConnectingSocial",
    "ConnectSocials",
    "ConnectWallets",
    "ConnectingFarcaster",
    "CallsStatus",
    "ContinueOnPhone",
)


@dataclass(frozen=True)
class Route:
    view: str
    param: str = ""


@dataclass(frozen=True)
class TxEntry:
    """What happens after a transaction: go back, replace, or reset to `view`."""

    view: str | None = None
    go_back: bool = False
    replace: bool = False


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


def push_tx(state: RouterState, entry: TxEntry) -> RouterState:
    return replace(state, tx_stack=(*state.tx_stack, entry))
