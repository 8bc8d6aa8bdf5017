"""WhatIsAWallet: a short explanation for visitors without a wallet, then a way to get one.

Each point is a row (icon, then its title and text, all left-aligned); "Get a wallet" leads to
All Wallets, where a wallet that is not installed opens its page with its download links.
"""

from __future__ import annotations

from ..slices.model import Model
from ..slices.navigation import PressedNavigate
from ..wire.nodes import Node, node
from . import parts

TITLE = "What is a wallet?"
GET_A_WALLET = "Get a wallet"

POINTS = (
    ("wallet", "Your digital home", "A wallet lets you store, send and receive digital assets like NFTs and tokens."),
    ("user", "One login for all of web3", "Log in to any app by connecting your wallet. Say goodbye to countless passwords."),
    ("globe", "Your gateway to a new web", "With your wallet you can explore and interact with decentralised applications."),
)


def body(model: Model) -> Node:
    items = [
        node("stack", f"what/{icon}", [
            node("icon", f"what/{icon}/icon", name=icon, size=24, tone="accent", badge=True),
            parts.column(f"what/{icon}/words", [
                node("text", f"what/{icon}/title", text=title, variant="label", tone="strong"),
                node("text", f"what/{icon}/text", text=text, variant="small", tone="muted"),
            ], gap=2),
        ], dir="row", gap=12, align="start")
        for icon, title, text in POINTS
    ]
    children = [parts.column("what/points", items, gap=16, pad=4)]
    if model.options.features.allWallets:
        children.append(node("button", "what/get", on={"press": PressedNavigate("AllWallets")},
                             pending={"press": "busy"}, text=GET_A_WALLET, icon="wallet", variant="main"))
    return parts.column("what/body", children, gap=20)
