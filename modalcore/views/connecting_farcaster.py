"""ConnectingFarcaster (behaviour.md §2; issue 33): a frame of the engine's own origin
(`/embedded/farcaster`, server/verify_farcaster.py) opens the relay channel for its key and draws
its `farcaster://connect` URL inside itself: a QR code to scan with a Farcaster client on
desktops, an "Open Farcaster" link on phones (issue 27: the key registered is the frame's, so the
host page never draws the link). A refused or failed sign-in shows Try again."""

from __future__ import annotations

from urllib.parse import urlencode

from ..slices.farcaster import PressedRetryFarcaster
from ..slices.model import Model
from ..wire.nodes import Node, node
from .approve_transaction import theme_key

TITLE = "Farcaster"
PATH = "/embedded/farcaster"
FRAME_HEIGHT = 340  # the QR and its Copy link
PHONE_FRAME_HEIGHT = 72  # the Open Farcaster button alone: no blank under it (issue 39 item 9)
READS = ("embedded", "env", "theme", "session_id", "siwx")  # the frame's src names the session and theme


def frame_src(session_id: str, attempt: int, theme: str = "") -> str:
    query = {"session": session_id, "attempt": str(attempt), **({"theme": theme} if theme else {})}
    return f"{PATH}?{urlencode(query)}"


def _parts(model: Model) -> list[Node]:
    channel = model.embedded.farcaster
    if channel is not None and channel.error:
        return [node("text", "farcaster/status", text=channel.error, variant="label", tone="error"),
                node("button", "farcaster/retry", on={"press": PressedRetryFarcaster()},
                     pending={"press": "spinner"}, text="Try again", variant="accent", icon="refresh")]
    if channel is None:  # connected; with sign-in required, signing in at once (farcaster_siwx.py)
        return [node("spinner", "farcaster/spinner", size=24)] if model.siwx.signing else []
    if channel.signs_in and not channel.sign_in_nonce:  # the sign-in's nonce first (farcaster_siwx.py)
        return [node("spinner", "farcaster/spinner", size=24)]
    hint = "Continue in Farcaster" if model.env.mobile else "Scan this QR Code with your phone"
    return [node("frame", "farcaster/frame", src=frame_src(model.session_id, channel.attempt, theme_key(model.theme)),
                 title="Sign in with Farcaster", height=PHONE_FRAME_HEIGHT if model.env.mobile else FRAME_HEIGHT),
            node("text", "farcaster/hint", text=hint, variant="small", tone="muted")]


def body(model: Model) -> Node:
    return node("stack", "farcaster/body", _parts(model), dir="col", gap=12, align="center", pad=16)
