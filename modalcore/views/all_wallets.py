"""AllWallets: every wallet the visitor can pick (the directory arrives with its own issue)."""

from __future__ import annotations

from ..engine.model import Model
from ..wire.nodes import Node, node
from . import parts
from .wallet_list import installed_wallets

TITLE = "All Wallets"


def body(model: Model) -> Node:
    rows = installed_wallets(model, "all")
    if not rows:
        rows = [node("text", "all/empty", text="No wallet was detected in this browser.",
                     variant="body", tone="muted")]
    return parts.column("all/body", rows)
