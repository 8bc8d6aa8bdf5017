"""Rows for the wallets the visitor's browser announced, in the SPEC's connector order."""

from __future__ import annotations

from ..engine.model import Model
from ..slices.connection import PressedWallet
from ..slices.connectors import ordered
from ..wire.nodes import Node, node


def installed_wallets(model: Model, prefix: str) -> list[Node]:
    recent = model.connectors.recent
    rows = []
    for connector in ordered(model.connectors):
        tag = "RECENT" if connector.id in recent else "INSTALLED"
        rows.append(
            node("wallet-item", f"{prefix}/wallet/{connector.id}",
                 on={"press": PressedWallet(connector.id)}, pending={"press": "busy"},
                 name=connector.name, image=connector.image_url, tag=tag)
        )
    return rows
