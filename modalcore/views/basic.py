"""ConnectingWalletConnectBasic: the plain list of wallets this browser can connect."""

from __future__ import annotations

from ..slices.model import Model
from ..slices.navigation import PressedNavigate
from ..wire.nodes import Node, node
from . import parts
from .wallet_list import installed_wallets

TITLE = "Connect Wallet"


def body(model: Model) -> Node:
    rows = installed_wallets(model, "basic")
    if not rows:
        rows = [node("text", "basic/empty", text="No wallet was detected in this browser.",
                     variant="body", tone="muted")]
    rows.append(node("link", "basic/what", on={"press": PressedNavigate("WhatIsAWallet")},
                     text="What is a wallet?"))
    return parts.column("basic/body", rows)
