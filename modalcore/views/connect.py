"""The Connect view: installed wallets first, then the way to every other wallet."""

from __future__ import annotations

from ..engine.model import Model
from ..slices.navigation import PressedNavigate
from ..wire.nodes import Node, node
from . import parts
from .wallet_list import installed_wallets


def body(model: Model) -> Node:
    items = installed_wallets(model, "connect")
    if model.options.features.allWallets:
        items.append(
            node("wallet-item", "connect/all-wallets", on={"press": PressedNavigate("AllWallets")},
                 pending={"press": "busy"}, name="All Wallets", image="", tag="")
        )
    footer = parts.row("connect/footer", [
        node("text", "connect/footer/text", text="Haven't got a wallet?", variant="small", tone="muted"),
        node("link", "connect/footer/link", on={"press": PressedNavigate("WhatIsAWallet")},
             text="Get started"),
    ], justify="center")
    return parts.column("connect/body", [parts.column("connect/list", items), footer], gap=16)


TITLE = "Connect Wallet"
