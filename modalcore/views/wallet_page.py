"""WalletPage: a wallet of the directory that is not installed in this browser.

A wallet with a WalletConnect link pairs here: on a computer the pairing URI as a QR code with
the wallet's icon in its centre (scanned by its phone app), "Copy link" and its desktop app
opened with the URI; on a phone its deep link opened with the URI. It also offers the other
links this device can open (web app, or for the two special wallets a link opening this dApp in
the wallet's browser), each through an `open_url` effect.
"""

from __future__ import annotations

from ..directory.domain.wallets import Wallet
from ..slices.model import Model
from ..slices import directory_wallets
from ..slices.directory_wallets import PressedWalletLink
from ..flows.walletconnect_links import pairing_links, pairs_with, wallet_link
from ..slices.walletconnect import PressedCopyWcLink, PressedOpenWcLink
from ..wire.nodes import Node, node
from .connecting_walletconnect import pairing_body

LABELS = {"mobile": "Open {name}", "desktop": "Open desktop app", "webapp": "Open web app"}
MOBILE_HINT = "Open and continue in the wallet app"  # AppKit's ConstantsUtil.CONNECT_LABELS.MOBILE


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
    if pairs_with(model, wallet):
        return _paired(model, wallet, image, links)
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


def _paired(model: Model, wallet: Wallet, image: str, links: list[tuple[str, str]]) -> Node:
    """A wallet reached over WalletConnect: the QR code (desktop) or its deep link (mobile) with
    the pairing URI, then its web app if it has one."""
    uri_links = pairing_links(model, wallet) if model.walletconnect.uri else []
    children: list[Node] = []
    buttons: list[Node]
    if model.env.mobile and not model.walletconnect.error:
        # AppKit's ConnectingWcMobile: the deep link opened as soon as the URI exists, "Open" to
        # open it again and "Copy link"; no QR code on the phone that would have to scan it
        ready = bool(model.walletconnect.uri)
        children += [
            node("image", "wallet/logo", src=image, alt=wallet.name, size=80),
            node("text", "wallet/status", text=f"Continue in {wallet.name}", variant="label"),
            node("text", "wallet/hint", text=MOBILE_HINT, variant="small", tone="muted"),
        ]
        buttons = [
            node("button", "wallet/wc/mobile", on={"press": PressedOpenWcLink("mobile")}, text="Open",
                 variant="main", icon="external", disabled=None if ready else True),
            node("button", "wallet/copy", on={"press": PressedCopyWcLink()}, text="Copy link", icon="copy",
                 variant="secondary", disabled=None if ready else True),
        ] if wallet_link(wallet.mobile_link) else []
    else:
        children += pairing_body(model, "wallet", image)
        buttons = [
            node("button", f"wallet/wc/{kind}", on={"press": PressedOpenWcLink(kind)},
                 text=LABELS[kind].format(name=wallet.name), variant="secondary", icon="external")
            for kind, _url in uri_links
        ]
    buttons += [
        node("button", f"wallet/open/{kind}", on={"press": PressedWalletLink(kind)},
             text=LABELS[kind].format(name=wallet.name), variant="secondary", icon="external")
        for kind, _url in links if kind == "webapp"
    ]
    if buttons:
        children.append(node("stack", "wallet/links", buttons, dir="col", gap=8))
    return node("stack", "wallet/body", children, dir="col", gap=12, align="center", pad=16)
