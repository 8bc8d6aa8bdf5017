"""Wallet rows in the behaviour.md §1 connector order: walletConnect, recent, injected, featured, custom,
external, recommended.

Installed wallets are the browser's announced connectors; a directory wallet whose rdns matches
one of them is that installed wallet (shown once, as the connector, tagged and connectable).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..directory.domain.wallets import Wallet
from ..slices.model import Model
from ..slices import directory_query, directory_wallets
from ..slices.connecting import PressedWallet
from ..slices.connectors import Connector, ordered
from ..slices.directory_wallets import PressedDirectoryWallet
from ..wire.nodes import Node, node
from . import logos

LATE_TYPES = ("EXTERNAL", "AUTH")  # connectors listed after featured and custom wallets


NAMESPACE_BADGES = {("solana",): "SOLANA", ("eip155", "solana"): "EVM + SOLANA"}


def connector_row(model: Model, connector: Connector, prefix: str) -> Node:
    image = connector.image_url
    if connector.type == "WALLET_CONNECT":
        # a phone opens wallets by their link, not a QR it would have to scan (issue 39 item 9)
        tag = None if model.env.mobile else "QR CODE"
        image = image or logos.WALLETCONNECT
    else:  # a wallet of the solana namespace carries its namespace badge (issue 18)
        badge = NAMESPACE_BADGES.get(connector.namespaces)
        tag = "RECENT" if connector.id in model.connectors.recent else badge or "INSTALLED"
    return node("wallet-item", f"{prefix}/wallet/{connector.id}",
                on={"press": PressedWallet(connector.id)}, pending={"press": "busy"},
                name=connector.name, image=image, tag=tag)


def listed(model: Model) -> tuple[Connector, ...]:
    """The connectors in connector order that can connect to a namespace the host asked for (a
    Solana-only wallet is not offered to an eip155-only dApp)."""
    namespaces = {network.namespace for network in model.networks.known} or {"eip155"}
    return tuple(c for c in ordered(model.connectors)
                 if c.type == "WALLET_CONNECT" or any(c.supports(ns) for ns in namespaces))


def installed_wallets(model: Model, prefix: str) -> list[Node]:
    """Rows for every connector the browser announced, recent first (WalletConnect leads the
    Connect view, not All Wallets: there each wallet's page pairs over it)."""
    return [connector_row(model, connector, prefix) for connector in listed(model)
            if connector.type != "WALLET_CONNECT"]


def wallet_row(model: Model, wallet: Wallet, node_id: str, *, image: bool, custom: bool = False) -> Node:
    """`image` False: the row's image is fetched only once it scrolls into view (`lazy`)."""
    src = directory_wallets.custom_image(model, wallet) if custom else directory_wallets.wallet_image(model.directory, wallet)
    return node("wallet-item", node_id, on={"press": PressedDirectoryWallet(wallet.id, custom)},
                pending={"press": "busy"}, name=wallet.name, image=src, lazy=None if image else True)


def _directory_rows(model: Model, wallets: Iterable[Wallet], prefix: str, seen: set[str],
                    *, images: int | None = None, paged: bool = False) -> list[Node]:
    """Rows for directory wallets not shown yet and not installed; with `images`, the images of
    only the first `images` (of each page of 40 when `paged`) are fetched at once (behaviour.md §9), the
    others as they scroll into view."""
    rdns = directory_wallets.installed(model)
    rows = []
    for index, wallet in enumerate(wallets):
        if wallet.id in seen or (wallet.rdns and wallet.rdns in rdns):
            continue
        seen.add(wallet.id)
        position = index % directory_query.PAGE_ENTRIES if paged else index
        with_image = images is None or position < images
        rows.append(wallet_row(model, wallet, f"{prefix}/w/{wallet.id}", image=with_image))
    return rows


def _custom_rows(model: Model, prefix: str, needle: str | None = None) -> list[Node]:
    """Rows for the host's custom wallets (those whose name contains `needle`, when given);
    their node ids number them in the host's list."""
    return [wallet_row(model, w, f"{prefix}/custom/{i}", image=True, custom=True)
            for i, w in enumerate(directory_wallets.custom_wallets(model))
            if needle is None or needle in w.name.lower()]


def connect_rows(model: Model, recommended: int | None = None, prefix: str = "connect") -> list[Node]:
    """The Connect view's wallets in connector order; at most `recommended` directory wallets
    (AppKit's capped recommended wallets, views/connect.py). `prefix` starts their node ids
    (ConnectWallets draws the same rows beside a hidden Connect: ids are tree-unique)."""
    connectors = listed(model)
    early = [c for c in connectors if c.type not in LATE_TYPES]
    late = [c for c in connectors if c.type in LATE_TYPES]
    state = model.directory
    seen: set[str] = set()
    rows = [connector_row(model, c, prefix) for c in early]
    rows += _directory_rows(model, state.featured, prefix, seen)
    rows += _custom_rows(model, prefix)
    rows += [connector_row(model, c, prefix) for c in late]
    rows += _directory_rows(model, state.recommended, prefix, seen)[:recommended]
    return rows


def all_wallet_rows(model: Model) -> list[Node]:
    """All Wallets without a search: recent and installed first, then featured, custom and
    the directory's pages."""
    state = model.directory
    seen: set[str] = set()
    rows = installed_wallets(model, "all")
    rows += _directory_rows(model, state.featured, "all", seen)
    rows += _custom_rows(model, "all")
    rows += _directory_rows(model, state.wallets, "all", seen, images=directory_query.IMAGES_PER_PAGE,
                            paged=True)
    return rows


def search_rows(model: Model) -> list[Node]:
    """All Wallets while searching: matching installed and custom wallets, then the directory's
    answer (at most 100, images for the first 20); installed ones appear as the connector."""
    state = model.directory
    needle = state.search_query.lower()
    rdns = directory_wallets.installed(model)
    found = {w.rdns for w in state.results if w.rdns in rdns}
    rows = [connector_row(model, c, "all") for c in listed(model)
            if c.type != "WALLET_CONNECT" and (needle in c.name.lower() or c.rdns in found)]
    rows += _custom_rows(model, "all", needle)
    rows += _directory_rows(model, state.results[:directory_query.SEARCH_ENTRIES], "all", set(),
                            images=directory_query.IMAGES_PER_PAGE)
    return rows
