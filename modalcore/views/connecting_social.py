"""ConnectingSocial: the provider's sign-in runs in a popup (AppKit's name for SPEC §2's
"social login" view); the engine's callback connects the visitor when it comes back."""

from __future__ import annotations

from ..flows.social import NAMES
from ..slices.embedded import PressedSocial
from ..slices.model import Model
from ..wire.nodes import Node, node
from . import logos


def title(model: Model) -> str:
    return NAMES.get(model.embedded.social, "Social login")


def body(model: Model) -> Node:
    state = model.embedded
    name = NAMES.get(state.social, state.social)
    logo = logos.SOCIALS.get(state.social)
    children = [node("image", "social/logo", src=logo, alt=name, size=56, round=False)] if logo else []
    children += [node("spinner", "social/spinner", size=24) if not state.social_error else
                 node("icon", "social/failed", name="warning", size=24 if logo else 40, tone="error"),
                 node("text", "social/title", text=f"Log in with {name}" if name else "Social login",
                      variant="label"),
                 node("text", "social/hint", text="Connect in the provider window", variant="small", tone="muted")]
    if state.social_error:
        children.append(node("text", "social/error", text=state.social_error, variant="small", tone="error"))
        children.append(node("button", "social/retry", on={"press": PressedSocial(state.social)},
                             text="Try again", variant="accent"))
    # centred like ConnectingExternal and AppKit's social view (left-aligned text under a centred
    # spinner read as a layout defect)
    return node("stack", "social/body", children, dir="col", gap=12, align="center", pad=16)


READS = ("embedded",)
