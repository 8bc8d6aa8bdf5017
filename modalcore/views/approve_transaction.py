"""ApproveTransaction (behaviour.md §2): the embedded wallet's approval, drawn by the engine itself.

What is approved (the message, the typed data, the transaction, decoded) and the Approve and
Reject buttons are a page of the engine's own origin in a cross-origin iframe
(`/embedded/approve`, server/approval.py): a script of the host page can neither read nor click
inside it, and only that frame's request approves (issue 15 §4). This view holds the frame only.
The view cannot be closed unless forced (behaviour.md §2, `modal.closing_allowed`). Its title says what
is approved (issue 28 item 9): a message or typed data is signed, not a transaction; the frame's
heading says the same (embedded/decode.py TITLES).

With a phone linked (issue 44 item 1) the request waits for the phone, and what is drawn depends
on the screen (views/screens.py): the host page's says "Waiting for your phone"; the phone's
modal holds the phone's approval frame (`/continue-approve`, server/handoff_frame.py: the approval
tree's rows, Approve and Reject, signed with the phone's own key). The host page's tree never
holds that frame, so no intent of the host page's names it.
"""

from __future__ import annotations

import hashlib
from urllib.parse import urlencode

from ..slices.handoff import linked_key
from ..slices.model import Model
from ..slices.theme import ThemeState
from ..wire.nodes import Node, node
from . import parts
from .screens import HOST, Screen

TITLE = "Approve Transaction"
# method -> title; anything else (eth_sendTransaction) is TITLE
SIGN_TITLES = {"personal_sign": "Sign message", "eth_signTypedData_v4": "Sign typed data"}
FRAME_HEIGHT = 420
APPROVE_PATH = "/embedded/approve"
PHONE_APPROVE_PATH = "/continue-approve"  # the linked phone's approval frame (server/handoff_frame.py)
SCREENED = True  # the host page and the linked phone draw it differently
READS = ("embedded", "handoff", "session_id", "theme")  # all `body` reads (its memo: views/__init__.BodyCache)


def theme_key(theme: ThemeState) -> str:
    """Names the session's theme in the frame's address, so the frame is loaded again in the new
    theme when the host changes it (the page draws the theme the session has, behaviour.md §3 Theme);
    empty for the default theme (dark, no variables)."""
    if theme.mode == "dark" and not theme.variables:
        return ""
    digest = hashlib.sha256(repr((theme.mode, theme.variables)).encode()).hexdigest()[:12]
    return f"{theme.mode}-{digest}"


def frame_src(session_id: str, eid: str, theme: str = "", path: str = APPROVE_PATH) -> str:
    query = {"session": session_id, "request": eid, **({"theme": theme} if theme else {})}
    return f"{path}?{urlencode(query)}"


def title(model: Model) -> str:
    request = model.embedded.request
    return SIGN_TITLES.get(request.method, TITLE) if request is not None else TITLE


def body(model: Model, screen: Screen = HOST) -> Node:
    request = model.embedded.request
    if request is None:
        return parts.column("approve/body", [node("spinner", "approve/waiting", size=32)])
    if linked_key(model) and screen.companion:
        # the linked phone's modal: its own approval frame, signed with the phone's key
        src = frame_src(model.session_id, request.eid, theme_key(model.theme), PHONE_APPROVE_PATH)
        # the other device: the phone, or the computer a phone's session was continued on
        label = "Approve or reject on your computer" if model.handoff.to == "computer" else "Approve or reject on your phone"
        return parts.column("approve/body", [
            node("frame", f"approve/phone-frame/{request.eid}", src=src, title=label, height=FRAME_HEIGHT),
        ])
    if linked_key(model):
        # a phone linked to this session approves there (issue 44 item 1): the host page waits
        return parts.column("approve/body", [
            node("spinner", f"approve/phone-spinner/{request.eid}", size=32),
            *([node("text", "approve/phone", text="Waiting for your computer", variant="body"),
               node("text", "approve/phone-hint", text="Approve or reject on your computer", variant="small", tone="muted")]
              if model.handoff.to == "computer" else
              [node("text", "approve/phone", text="Waiting for your phone", variant="body"),
               node("text", "approve/phone-hint", text="Approve or reject on your phone", variant="small", tone="muted")]),
        ], gap=12)
    return parts.column("approve/body", [
        node("frame", f"approve/frame/{request.eid}", src=frame_src(model.session_id, request.eid, theme_key(model.theme)),
             title="Approve with your email wallet", height=FRAME_HEIGHT),
    ])
