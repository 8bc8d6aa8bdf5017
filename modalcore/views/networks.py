"""The Networks view: the host's networks, the active one marked."""

from __future__ import annotations

from ..slices.model import Model
from ..slices.switching import PressedNetwork
from ..wire.nodes import Node, node
from . import parts
from .wallet_prompt import prompt, wallet_name

TITLE = "Choose Network"


def network_rows(model: Model, prefix: str) -> list[Node]:
    active = None if model.networks.unsupported else model.networks.active
    target = model.switching.target
    return [
        node("network-item", f"{prefix}/{network.id}", on={"press": PressedNetwork(network.id)},
             pending={"press": "busy"}, name=network.name, image=parts.network_image(network),
             active=network.id == active, busy=True if network.id == target else None)
        for network in model.networks.known
    ]


def switch_prompt(model: Model, prefix: str) -> list[Node]:
    """While the wallet is asked to switch: where to approve it."""
    return prompt(model, prefix) if model.switching.target is not None else []


def hint(model: Model) -> list[Node]:
    """AppKit's note, only where it applies (issue 39 item 9): a wallet is connected and it is
    not the embedded wallet (the engine's own, on every network the host asked for). Before
    connecting there is no connected wallet to doubt."""
    if wallet_name(model) is None:
        return []
    return [node("text", "networks/hint",
                 text="Your connected wallet may not support some of the networks available for this dApp",
                 variant="small", tone="muted")]


def body(model: Model) -> Node:
    return parts.column("networks/body", [
        parts.column("networks/list", network_rows(model, "networks")),
        *switch_prompt(model, "networks"),
        *hint(model),
    ], gap=12)
