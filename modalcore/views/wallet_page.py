"""WalletPage: a wallet of the directory that is not installed in this browser.

It offers the links this device can open (desktop app, web app, or on mobile the wallet's deep
link or, for the two special wallets, a link opening this dApp in the wallet's browser), each
through an `open_url` effect. No QR code is drawn: a QR that no pairing stands behind would be a
dead end.
"""

from __future__ import annotations

from ..slices.model import Model
from ..slices import directory_wallets
from ..slices.directory_wallets import PressedWalletLink
from ..wire.nodes import Node, node

LABELS = {"mobile": "Open {name}", "desktop": "Open desktop app", "webapp": "Open web app"}


def title(model: Model) -> str:
    wallet = model.directory.selected
    return wallet.name if wallet is not None else "Wallet"


def body(model: Model) -> Node:
    state = model.directory
    wallet = state.selected
    if wallet is None or wallet.id != model.router.param:
        return node("stack", "wallet/body", [
            node("text", "wallet/missing", text="This wallet is not available.", variant="body", tone="muted"),
        ], dir="col", gap=12, align="center", pad=16)
    image = (directory_wallets.custom_image(model, wallet) if state.selected_custom
             else directory_wallets.wallet_image(state, wallet))
    links = directory_wallets.wallet_links(model, wallet)
    children: list[Node] = [
        node("image", "wallet/logo", src=image, alt=wallet.name, size=80),
        node("text", "wallet/status", text="Not installed in this browser", variant="label"),
    ]
    if links:
        children.append(node("text", "wallet/hint", text=f"Continue in {wallet.name} with a link below.",
                             variant="small", tone="muted"))
        buttons = [
            node("button", f"wallet/open/{kind}", on={"press": PressedWalletLink(kind)},
                 text=LABELS[kind].format(name=wallet.name), variant="main" if i == 0 else "secondary",
                 icon="external")
            for i, (kind, _url) in enumerate(links)
        ]
        children.append(node("stack", "wallet/links", buttons, dir="col", gap=8))
    elif wallet.rdns:
        # an extension wallet: once installed it announces itself (EIP-6963) and is connectable
        children.append(node(
            "text", "wallet/hint",
            text=f"Install the {wallet.name} extension in this browser, then come back: "
                 "it will be listed as installed.",
            variant="small", tone="muted"))
    else:
        children.append(node(
            "text", "wallet/hint", text=f"{wallet.name} offers no app or link for this device.",
            variant="small", tone="muted"))
    return node("stack", "wallet/body", children, dir="col", gap=12, align="center", pad=16)
