"""ContinueOnPhone (issue 44 item 1): the single-use link to this session as a QR code and "Copy
link"; once a phone claimed it, the code both screens show and "Does your phone show this
code?" (slices/handoff.py, docs/features/continue-on-phone.md)."""

from __future__ import annotations

from urllib.parse import urlencode

from ..slices.handoff import (CONFIRM_PATH, PressedCopyHandoffLink, PressedHandoffDeny, PressedHandoffNewLink,
                              confirmable, link_of)
from ..slices.model import Model
from ..wire.nodes import Node, node
from . import parts
from .qrcode import qr_node

TITLE = "Continue on your phone"
QR_SIZE = 232
READS = ("handoff", "session_id", "embedded.identity")
CONFIRM_HEIGHT = 160


def _spaced(code: str) -> str:
    return f"{code[:3]} {code[3:]}"


def _lines(model: Model) -> list[Node]:
    state = model.handoff
    p = "handoff"
    if state.status == "minting":
        return [node("skeleton", f"{p}/qr", w=QR_SIZE, h=QR_SIZE),
                node("text", f"{p}/hint", text="Preparing the QR code", variant="small", tone="muted")]
    if state.status == "offered":
        return [
            qr_node(f"{p}/qr", link_of(state, model.session_id), size=QR_SIZE, label="Continue on your phone QR code"),
            node("text", f"{p}/hint", text="Scan with your phone's camera to continue there. The link works once, for 2 minutes.",
                 variant="small", tone="muted"),
            node("button", f"{p}/copy", on={"press": PressedCopyHandoffLink()}, text="Copy link", icon="copy",
                 variant="secondary"),
        ]
    if state.status == "confirm":
        # "Yes" is the engine's own frame (server/handoff_confirm.py): the host page cannot press it
        yes = (node("frame", f"{p}/confirm/{state.digest[:16]}", title="Confirm your phone", height=CONFIRM_HEIGHT,
                    src=f"{CONFIRM_PATH}?{urlencode({'session': model.session_id})}")
               if confirmable(model) else
               node("text", f"{p}/sign-in-first", text="Sign in on this computer with email or a social account "
                    "to approve on your phone", variant="small", tone="muted"))
        return [
            node("text", f"{p}/code", text=_spaced(state.code), variant="title"),
            node("text", f"{p}/ask", text="Does your phone show this code?", variant="body"),
            yes,
            node("button", f"{p}/deny", on={"press": PressedHandoffDeny()}, text="No", variant="secondary"),
        ]
    if state.status == "linked":
        return [node("text", f"{p}/linked", text="Your phone is connected", variant="body")]
    text = "This link expired" if state.status == "expired" else "Make a link to continue on your phone"
    return [
        node("text", f"{p}/status", text=text, variant="body", tone="muted"),
        node("button", f"{p}/new", on={"press": PressedHandoffNewLink()}, pending={"press": "spinner"},
             text="New link", variant="accent", icon="refresh"),
    ]


def body(model: Model) -> Node:
    return parts.column("handoff/body", _lines(model), gap=12)
