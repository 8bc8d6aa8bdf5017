"""Rows for the wallets the visitor's browser announced."""

from __future__ import annotations

from ..engine.model import Model
from ..slices.connection import PressedWallet
from ..wire.nodes import Node, node


def installed_wallets(model: Model, prefix: str) -> list[Node]:
    recent = model.connectors.recent
    ordered = sorted(
        model.connectors.items,
        key=lambda c: (recent.index(c.id) if c.id in recent else len(recent)),
    )
    rows = []
    for connector in ordered:
        tag = "RECENT" if connector.id in recent else "INSTALLED"
        rows.append(
            node("wallet-item", f"{prefix}/wallet/{connector.id}",
                 on={"press": PressedWallet(connector.id)}, pending={"press": "busy"},
                 name=connector.name, image=connector.image_url, tag=tag)
        )
    return rows
