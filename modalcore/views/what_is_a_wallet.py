"""WhatIsAWallet: a short explanation for visitors without a wallet."""

from __future__ import annotations

from ..slices.model import Model
from ..wire.nodes import Node, node
from . import parts

TITLE = "What is a wallet?"

POINTS = (
    ("wallet", "Your digital home", "A wallet lets you store, send and receive digital assets like NFTs and tokens."),
    ("user", "One login for all of web3", "Log in to any app by connecting your wallet. Say goodbye to countless passwords."),
    ("globe", "Your gateway to a new web", "With your wallet you can explore and interact with decentralised applications."),
)


def body(model: Model) -> Node:
    items = [
        parts.column(f"what/{icon}", [
            node("icon", f"what/{icon}/icon", name=icon, size=32, tone="accent"),
            node("text", f"what/{icon}/title", text=title, variant="label"),
            node("text", f"what/{icon}/text", text=text, variant="small", tone="muted"),
        ], gap=4)
        for icon, title, text in POINTS
    ]
    return parts.column("what/body", items, gap=20, pad=8)
