"""The Activity tab of the Account view."""

from __future__ import annotations

from ..engine.model import Model
from ..wire.nodes import Node, node


def activity(model: Model) -> Node:
    return node("stack", "account/activity", [
        node("icon", "account/activity/icon", name="activity", size=32, tone="muted"),
        node("text", "account/activity/text", text="No activity yet", variant="small", tone="muted"),
    ], dir="col", gap=8, align="center", pad=16)
