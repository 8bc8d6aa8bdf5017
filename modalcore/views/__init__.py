"""`render(model) -> tree`: pure. The root `modal` node holds the header, the view, the snackbar.

One module per view; each exports `body(model) -> Node` and `TITLE` (or `title(model)`).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from ..engine.model import Model
from ..slices import modal as modal_slice
from ..slices.navigation import PressedClose
from ..slices.snack import PressedSnackbar
from ..wire.nodes import Node, node
from . import (
    account,
    all_wallets,
    basic,
    connect,
    connecting_external,
    networks,
    parts,
    receive,
    siwx_sign,
    send,
    send_preview,
    unsupported_chain,
    what_is_a_wallet,
)

VIEW_MODULES: dict[str, ModuleType] = {
    "Connect": connect,
    "AllWallets": all_wallets,
    "ConnectingWalletConnectBasic": basic,
    "ConnectingExternal": connecting_external,
    "WhatIsAWallet": what_is_a_wallet,
    "Account": account,
    "Networks": networks,
    "UnsupportedChain": unsupported_chain,
    "WalletReceive": receive,
    "WalletSend": send,
    "WalletSendPreview": send_preview,
    "SIWXSignMessage": siwx_sign,
}


def register_view(name: str, module: ModuleType) -> None:
    VIEW_MODULES[name] = module


def _title(module: ModuleType, model: Model) -> str:
    title: Callable[[Model], str] | None = getattr(module, "title", None)
    return title(model) if title is not None else str(getattr(module, "TITLE", ""))


def render(model: Model) -> Node:
    view = model.router.view
    module = VIEW_MODULES.get(view, connect)
    closable = modal_slice.closing_allowed(model)
    leading = getattr(module, "header_leading", None)
    head = parts.header(
        _title(module, model),
        back=len(model.router.history) > 1,
        close=not model.options.embedded,
        leading=leading(model) if leading is not None else None,
    )
    snack = model.snack
    snackbar = node(
        "snackbar", "snackbar", on={"press": PressedSnackbar()},
        message=snack.message, variant=snack.variant, open=snack.open,
    )
    view_node = node("view", f"view/{view}", [module.body(model)], name=view)
    return node(
        "modal",
        "modal",
        [head, view_node, snackbar],
        on={"close": PressedClose()},
        pending={"close": "close" if closable else None},
        open=model.modal.open,
        closable=closable,
        shake=model.modal.shake,
        embedded=model.options.embedded,
        view=view,
        loading=model.modal.loading,
    )
