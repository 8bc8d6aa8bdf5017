"""ContinueOnPhone (issue 44 item 1): the single-use link to this session as a QR code and "Copy
link"; once a phone claimed it, the code both screens show and "Does your phone show this
code?" (slices/handoff.py, docs/features/continue-on-phone.md)."""

from __future__ import annotations

from urllib.parse import urlencode

from ..slices.handoff import (CONFIRM_PATH, PATH, PressedCopyHandoffLink, PressedHandoffDeny, PressedHandoffNewLink,
                              PressedHandoffYes, confirmable, link_of, open_yes, spaced_code, typed_code)
from ..slices.model import Model
from ..wire.nodes import Node, node
from . import parts
from .qrcode import qr_node

TITLE = "Continue on your phone"
COMPUTER_TITLE = "Continue on computer"  # on a phone (env.mobile): the roles swapped (short: a phone's header)
QR_SIZE = 232
READS = ("handoff", "session_id", "embedded.identity", "accounts")
CONFIRM_HEIGHT = 160


def title(model: Model) -> str:
    return COMPUTER_TITLE if model.handoff.to == "computer" else TITLE


def _spaced(code: str) -> str:
    return f"{code[:3]} {code[3:]}"


def short_address(base: str) -> str:
    """What the visitor types in the computer's address bar: the engine's page for a code."""
    return base.removeprefix("https://") + PATH.rstrip("/")


def _to_computer(model: Model) -> list[Node]:
    """The link offered on a phone: a short address and a code to type on the computer."""
    state, p = model.handoff, "handoff"
    return [
        node("text", f"{p}/open", text="On your computer, open", variant="small", tone="muted"),
        node("text", f"{p}/address", text=short_address(state.base), variant="body"),
        node("text", f"{p}/type", text="and type this code", variant="small", tone="muted"),
        node("text", f"{p}/typed", text=spaced_code(typed_code(model.session_id, state.nonce)), variant="title"),
        node("text", f"{p}/hint", text="The code works once, for 2 minutes.", variant="small", tone="muted"),
        node("button", f"{p}/copy", on={"press": PressedCopyHandoffLink()}, text="Copy link", icon="copy",
             variant="secondary"),
    ]


def _lines(model: Model) -> list[Node]:
    state = model.handoff
    p = "handoff"
    computer = state.to == "computer"
    if state.status == "minting" and computer:
        return [node("skeleton", f"{p}/typed", w=QR_SIZE, h=48),
                node("text", f"{p}/hint", text="Preparing the code", variant="small", tone="muted")]
    if state.status == "offered" and computer:
        return _to_computer(model)
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
        yes = (node("frame", f"{p}/confirm/{state.digest[:16]}",
                    title="Confirm your computer" if computer else "Confirm your phone", height=CONFIRM_HEIGHT,
                    src=f"{CONFIRM_PATH}?{urlencode({'session': model.session_id})}")
               if confirmable(model) else
               # no account at all: the linked device gets no power the host lacks (slices/handoff.py)
               node("button", f"{p}/yes", on={"press": PressedHandoffYes()}, text="Yes, it does", variant="accent")
               if open_yes(model) else
               node("text", f"{p}/sign-in-first", text="Sign in on this phone with email or a social account "
                    "to continue on your computer", variant="small", tone="muted")
               if computer else
               node("text", f"{p}/sign-in-first", text="Sign in on this computer with email or a social account "
                    "to approve on your phone", variant="small", tone="muted"))
        ask = "Does your computer show this code?" if computer else "Does your phone show this code?"
        return [
            node("text", f"{p}/code", text=_spaced(state.code), variant="title"),
            node("text", f"{p}/ask", text=ask, variant="body"),
            yes,
            node("button", f"{p}/deny", on={"press": PressedHandoffDeny()}, text="No", variant="secondary"),
        ]
    if state.status == "linked":
        return [node("text", f"{p}/linked", text="Your computer is connected" if computer else "Your phone is connected",
                     variant="body")]
    text = ("This link expired" if state.status == "expired" else
            "Make a code to continue on your computer" if computer else "Make a link to continue on your phone")
    return [
        node("text", f"{p}/status", text=text, variant="body", tone="muted"),
        node("button", f"{p}/new", on={"press": PressedHandoffNewLink()}, pending={"press": "spinner"},
             text="New link", variant="accent", icon="refresh"),
    ]


def body(model: Model) -> Node:
    return parts.column("handoff/body", _lines(model), gap=12)
