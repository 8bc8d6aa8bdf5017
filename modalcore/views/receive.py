"""WalletReceive: the address as a QR code, with copy."""

from __future__ import annotations

from ..slices.model import Model
from ..slices.account_ui import PressedCopyAddress
from ..wire.nodes import Node, node
from . import parts
from .qrcode import qr_node

TITLE = "Receive"


def body(model: Model) -> Node:
    account = model.accounts.get(model.networks.active_namespace)
    network = model.networks.active_network
    address = account.address or ""
    return node("stack", "receive/body", [
        qr_node("receive/qr", address, size=220, label="Address QR code") if address
        else node("skeleton", "receive/qr", w=220, h=220),
        node("text", "receive/address", text=parts.truncate_address(address), variant="mono"),
        node("button", "receive/copy", on={"press": PressedCopyAddress()}, text="Copy address",
             icon="copy", variant="secondary"),
        node("text", "receive/network", text=f"Only send assets on {network.name}" if network else "",
             variant="small", tone="muted"),
    ], dir="col", gap=12, align="center", pad=8)
