"""ConnectingFarcaster (SPEC §2; issue 33): the relay channel's `farcaster://connect` URL as a
QR code to scan with a Farcaster client and Copy link on desktops, an "Open Farcaster" button on phones; a
loading state until the channel exists; a refused or failed sign-in with Try again."""

from __future__ import annotations

from ..slices.farcaster import PressedCopyFarcasterLink, PressedOpenFarcaster, PressedRetryFarcaster
from ..slices.model import Model
from ..wire.nodes import Node, node
from . import logos
from .qrcode import qr_node

TITLE = "Farcaster"
QR_SIZE = 232
READS = ("embedded", "env")


def _parts(model: Model) -> list[Node]:
    channel = model.embedded.farcaster
    if channel is not None and channel.error:
        return [node("text", "farcaster/status", text=channel.error, variant="label", tone="error"),
                node("button", "farcaster/retry", on={"press": PressedRetryFarcaster()},
                     pending={"press": "spinner"}, text="Try again", variant="accent", icon="refresh")]
    if channel is None or not channel.url:
        return [node("skeleton", "farcaster/qr", w=QR_SIZE, h=QR_SIZE),
                node("text", "farcaster/hint", text="Preparing the QR code", variant="small", tone="muted")]
    if model.env.mobile:
        return [node("text", "farcaster/hint", text="Continue in Farcaster", variant="label"),
                node("button", "farcaster/open", on={"press": PressedOpenFarcaster()}, text="Open Farcaster",
                     variant="main")]
    # Farcaster's mark in the QR's centre and Copy link, as AppKit's ConnectingFarcaster draws them
    return [qr_node("farcaster/qr", channel.url, size=QR_SIZE, image=logos.SOCIALS["farcaster"],
                    label="Farcaster QR code"),
            node("text", "farcaster/hint", text="Scan this QR Code with your phone", variant="small",
                 tone="muted"),
            node("button", "farcaster/copy", on={"press": PressedCopyFarcasterLink()}, text="Copy link",
                 icon="copy", variant="secondary")]


def body(model: Model) -> Node:
    return node("stack", "farcaster/body", _parts(model), dir="col", gap=12, align="center", pad=16)
