"""ConnectingSocial: the provider's sign-in runs in a popup (AppKit's name for behaviour.md §2's
"social login" view) that a frame of the engine's own origin takes (the window one press on
Connect opened, issue 39: `window_src`) or opens (`/embedded/social`, server/verify.py; issue
27): the popup reports back to that frame, which registers its key, and the engine connects the
visitor. The host page opens the window but never learns what the frame and the popup say."""

from __future__ import annotations

from ..flows.social import NAMES
from ..slices.embedded import PressedSocial
from ..slices.model import Model
from ..wire.nodes import Node, node
from urllib.parse import urlencode

from . import logos
from .approve_transaction import theme_key

SOCIAL_PATH = "/embedded/social"
WINDOW_PATH = "/embedded/social/window"
FRAME_HEIGHT = 120


def frame_src(session_id: str, theme: str = "") -> str:
    return f"{SOCIAL_PATH}?{urlencode({'session': session_id, **({'theme': theme} if theme else {})})}"


def window_src(session_id: str, provider: str) -> str:
    """The engine page Connect's social buttons open in a window in the press itself (issue 39:
    their `popup` prop; server/social_window.py): it hands itself to this view's frame."""
    return f"{WINDOW_PATH}?{urlencode({'session': session_id, 'provider': provider})}"


def title(model: Model) -> str:
    return NAMES.get(model.embedded.social, "Social login")


def body(model: Model) -> Node:
    state = model.embedded
    name = NAMES.get(state.social, state.social)
    logo = logos.SOCIALS.get(state.social)
    children = [node("image", "social/logo", src=logo, alt=name, size=56, round=False)] if logo else []
    # No spinner and no "Connect in the provider window" before a window is open (the walk: both
    # were shown while only the frame's button waited): the frame takes the window one press on
    # Connect opened, or its button opens one, and the frame itself says so once one is open, and
    # when it was closed (server/verify_script.py SOCIAL_SCRIPT).
    if state.social_error:
        children.append(node("icon", "social/failed", name="warning", size=24 if logo else 40, tone="error"))
    children += [node("text", "social/title", text=f"Log in with {name}" if name else "Social login",
                      variant="label"),
                 node("text", "social/hint", text="The sign-in opens in a new window", variant="small", tone="muted"),
                 node("frame", "social/frame", src=frame_src(model.session_id, theme_key(model.theme)),
                      title=f"Log in with {name}" if name else "Social login", height=FRAME_HEIGHT)]
    if state.social_error:
        children.append(node("text", "social/error", text=state.social_error, variant="small", tone="error"))
        children.append(node("button", "social/retry", on={"press": PressedSocial(state.social)},
                             text="Try again", variant="accent"))
    # centred like ConnectingExternal and AppKit's social view (left-aligned text under a centred
    # spinner read as a layout defect)
    return node("stack", "social/body", children, dir="col", gap=12, align="center", pad=16)


READS = ("embedded", "theme", "session_id")  # the frame's src names the session and theme
