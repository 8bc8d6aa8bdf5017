"""UnsupportedChain: the wallet is on a network the host did not ask for."""

from __future__ import annotations

from ..slices.model import Model
from ..flows.disconnect import PressedDisconnect
from ..wire.nodes import Node, node
from . import parts
from .networks import network_rows, switch_prompt

TITLE = "Switch Network"


def body(model: Model) -> Node:
    return parts.column("unsupported/body", [
        node("text", "unsupported/text",
             text="The network you're connected to isn't supported by this app. "
                  "Switch to an available option to continue.", variant="body", tone="muted"),
        parts.column("unsupported/list", network_rows(model, "unsupported")),
        *switch_prompt(model, "unsupported"),
        node("list-item", "unsupported/disconnect", on={"press": PressedDisconnect()},
             pending={"press": "busy"}, title="Disconnect", icon="disconnect"),
    ], gap=12)
