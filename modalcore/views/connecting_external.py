"""ConnectingExternal: waiting for a browser wallet to approve, with retry after a failure."""

from __future__ import annotations

from ..slices.model import Model
from ..slices.connecting import PressedRetryConnect
from ..wire.nodes import Node, node
from . import parts


def title(model: Model) -> str:
    connector = model.connectors.get(model.router.param)
    return connector.name if connector else "Connect"


def body(model: Model) -> Node:
    connector = model.connectors.get(model.router.param)
    name = connector.name if connector else "your wallet"
    image = connector.image_url if connector else ""
    error = model.connection.error
    children: list[Node] = [
        node("image", "external/logo", src=image, alt=name, size=80, round=False),
    ]
    if error:
        children += [
            node("text", "external/status", text=error, variant="label", tone="error"),
            node("text", "external/hint", text="Connection can be declined if a previous request is still active",
                 variant="small", tone="muted"),
            node("button", "external/retry", on={"press": PressedRetryConnect()},
                 pending={"press": "spinner"}, text="Try again", variant="accent", icon="refresh"),
            *parts.support_code(model, "external", "connect"),
        ]
    else:
        children += [
            node("text", "external/status", text="Continue in " + name, variant="label"),
            node("text", "external/hint", text="Accept connection request in the wallet",
                 variant="small", tone="muted"),
            node("spinner", "external/spinner", size=24),
        ]
    return node("stack", "external/body", children, dir="col", gap=12, align="center", pad=16)
