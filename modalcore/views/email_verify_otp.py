"""EmailVerifyOtp: the 6-digit code mailed to the visitor (issue 15; AppKit's name for behaviour.md §2's
"email login" view). The code is typed inside a frame of the engine's own origin
(`/embedded/signin`, server/verify.py), never in the host page's DOM (issue 27): a script of the
host page cannot read it, and the frame registers its own key with it, the key that later
approves. The sixth digit sends it. Below: a wrong, expired or locked code; resend (behaviour.md §5's
'Please try again after {n} seconds' within 30 s of the last code); and changing the email."""

from __future__ import annotations

from urllib.parse import urlencode

from ..slices.embedded import PressedChangeEmail, PressedResendCode
from ..slices.model import Model
from ..wire.nodes import Node, node
from . import parts
from .approve_transaction import theme_key

SIGNIN_PATH = "/embedded/signin"
FRAME_HEIGHT = 96


def frame_src(session_id: str, theme: str = "") -> str:
    return f"{SIGNIN_PATH}?{urlencode({'session': session_id, **({'theme': theme} if theme else {})})}"

TITLE = "Confirm Email"


def _centred(node_id: str, children: list[Node]) -> Node:
    return node("stack", node_id, children, dir="col", gap=4, align="center")


def body(model: Model) -> Node:
    state = model.embedded
    # the texts are centred, as the resend line and AppKit's view are (left-aligned texts above a
    # centred line read as a layout defect)
    notes = [node("text", "otp/expiry", text="The code expires in 10 minutes", variant="small", tone="muted")]
    if state.notice:
        notes.append(node("text", "otp/notice", text=state.notice, variant="small", tone="muted"))
    children = [
        _centred("otp/intro", [
            node("text", "otp/sent", text="Enter the code we sent to", variant="small", tone="muted"),
            node("text", "otp/email", text=state.email, variant="body"),
        ]),
        node("frame", "otp/frame", src=frame_src(model.session_id, theme_key(model.theme)),
             title="Verification code", height=FRAME_HEIGHT),
        *([node("text", "otp/error", text=state.code_error, variant="small", tone="error")]
          if state.code_error else []),
        _centred("otp/notes", notes),
    ]
    children.append(parts.row("otp/actions", [
        node("text", "otp/resend/label", text="Didn't receive it?", variant="small", tone="muted"),
        node("link", "otp/resend", on={"press": PressedResendCode()}, text="Resend code"),
    ], justify="center"))
    children.append(node("button", "otp/change-email", on={"press": PressedChangeEmail()},
                         text="Change email", variant="ghost"))
    return parts.column("otp/body", children, gap=12)


READS = ("embedded", "theme", "session_id")  # the frame's src names the session and theme
