"""EmailVerifyOtp: the 6-digit code mailed to the visitor (issue 15; AppKit's name for SPEC §2's
"email login" view). The code is typed digit by digit or pasted whole (the `otp-input` node);
the sixth digit sends it. Below: a wrong, expired or locked code; resend (SPEC §5's 'Please try
again after {n} seconds' within 30 s of the last code); and changing the email."""

from __future__ import annotations

from ..rules.embedded import CODE_DIGITS
from ..slices.embedded import PressedChangeEmail, PressedResendCode, change_code
from ..slices.model import Model
from ..wire.nodes import Node, node
from . import parts

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
        node("otp-input", "otp/code", on={"change": change_code}, length=CODE_DIGITS, value=state.code,
             error=state.code_error, label="Verification code", busy=True if state.verifying else None),
        _centred("otp/notes", notes),
    ]
    children.append(parts.row("otp/actions", [
        node("text", "otp/resend/label", text="Didn't receive it?", variant="small", tone="muted"),
        node("link", "otp/resend", on={"press": PressedResendCode()}, text="Resend code"),
    ], justify="center"))
    children.append(node("button", "otp/change-email", on={"press": PressedChangeEmail()},
                         text="Change email", variant="ghost"))
    return parts.column("otp/body", children, gap=12)


READS = ("embedded",)
