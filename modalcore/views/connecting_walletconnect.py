"""ConnectingWalletConnect: the pairing URI as a QR code to scan with a phone wallet, "Copy
link", a loading state until the URI exists, and 'Connection declined' with Try again."""

from __future__ import annotations

from ..slices.model import Model
from ..slices.walletconnect import PressedCopyWcLink, PressedRetryWalletConnect
from ..wire.nodes import Node, node
from . import logos, parts
from .qrcode import qr_node

TITLE = "WalletConnect"
QR_SIZE = 232
READS = ("walletconnect", "env")


def pairing_body(model: Model, prefix: str, image: str | None) -> list[Node]:
    """The QR code (or its loading state, or the failure with Try again) and "Copy link"."""
    state = model.walletconnect
    if state.error:
        return [
            node("text", f"{prefix}/status", text=state.error, variant="label", tone="error"),
            node("button", f"{prefix}/retry", on={"press": PressedRetryWalletConnect()},
                 pending={"press": "spinner"}, text="Try again", variant="accent", icon="refresh"),
            *parts.support_code(model, prefix, "connect"),
        ]
    if not state.uri:
        return [node("skeleton", f"{prefix}/qr", w=QR_SIZE, h=QR_SIZE),
                node("text", f"{prefix}/hint", text="Preparing the QR code", variant="small", tone="muted")]
    return [
        qr_node(f"{prefix}/qr", state.uri, size=QR_SIZE, image=image, label="WalletConnect QR code"),
        node("text", f"{prefix}/hint", text="Scan this QR Code with your phone", variant="small", tone="muted"),
        node("button", f"{prefix}/copy", on={"press": PressedCopyWcLink()}, text="Copy link", icon="copy",
             variant="secondary"),
    ]


def body(model: Model) -> Node:
    # WalletConnect's mark in the QR's centre, as AppKit draws it (the wallet pages put the
    # wallet's icon there)
    return node("stack", "wc/body", pairing_body(model, "wc", logos.WALLETCONNECT), dir="col", gap=12,
                align="center", pad=16)
