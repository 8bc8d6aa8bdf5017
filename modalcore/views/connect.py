"""The Connect view: wallets in the SPEC §1 connector order, then the way to every other wallet.

Installed (announced) wallets come first, then the host's featured and custom wallets, external
connectors and 4 recommended wallets from the directory (they appear once fetched; nothing
stands in for them meanwhile). "All Wallets" carries the directory's total, rounded ("120+").
"""

from __future__ import annotations

from ..slices.model import Model
from ..slices import directory_wallets
from ..slices.navigation import PressedNavigate
from ..wire.nodes import Node, node
from . import parts
from .wallet_list import connect_rows


def body(model: Model) -> Node:
    items = connect_rows(model)
    if model.options.features.allWallets:
        total = directory_wallets.total(model)
        items.append(
            node("wallet-item", "connect/all-wallets", on={"press": PressedNavigate("AllWallets")},
                 pending={"press": "busy"}, name="All Wallets", image="",
                 tag=directory_wallets.rounded_count(total) if total else "")
        )
    footer = parts.row("connect/footer", [
        node("text", "connect/footer/text", text="Haven't got a wallet?", variant="small", tone="muted"),
        node("link", "connect/footer/link", on={"press": PressedNavigate("WhatIsAWallet")},
             text="Get started"),
    ], justify="center")
    return parts.column("connect/body", [parts.column("connect/list", items), footer], gap=16)


TITLE = "Connect Wallet"
# What body() reads (views/__init__.py memoises it on these slices being the same objects).
READS = ("connectors", "directory", "options", "env", "origin")
