"""RegisterAccountNameSuccess (behaviour.md §2, §4 "Name registration"): pushed when Register is pressed;
waits while the wallet signs and the engine stores the name, then shows it."""

from __future__ import annotations

from ..slices.model import Model
from ..slices.register_name import PressedRegisterDone
from ..wire.nodes import Node, node
from . import parts

TITLE = "Account name"


def body(model: Model) -> Node:
    state = model.register_name
    if state.registering:
        name = state.registering
        return node("stack", "register-success/body", [
            node("spinner", "register-success/spinner", size=40),
            node("text", "register-success/pending", text=f"Registering {name}", variant="label"),
            node("text", "register-success/hint", text="Sign the message in your wallet", variant="small",
                 tone="muted"),
        ], dir="col", gap=12, align="center", pad=16)
    return node("stack", "register-success/body", [
        node("icon", "register-success/icon", name="check", size=40, tone="success"),
        node("text", "register-success/name", text=state.registered, variant="label"),
        node("text", "register-success/done", text="is now your account name", variant="small", tone="muted"),
        parts.row("register-success/actions", [
            node("button", "register-success/ok", on={"press": PressedRegisterDone()}, text="Done",
                 variant="main"),
        ], justify="center"),
    ], dir="col", gap=12, align="center", pad=16)
