"""A wallet's WalletConnect links (AppKit's formatNativeUrl / formatUniversalUrl): what the
wallet page offers and what a press opens."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from ..directory.domain import platform
from ..directory.domain.wallets import Wallet
from ..slices.connectors import WALLET_CONNECT_ID

if TYPE_CHECKING:
    from ..slices.model import Model


def wallet_link(link: str | None) -> str | None:
    """A wallet's native or universal link, ready for `wc?uri=` (AppKit's formatNativeUrl /
    formatUniversalUrl: a scheme without `//` gets it, a trailing `/` is added)."""
    safe = platform.safe_link(link)
    if not safe:
        return None
    if "://" not in safe:
        safe = safe.replace(":", "://", 1) if ":" in safe else f"{safe}://"
    return safe if safe.endswith("/") else safe + "/"


def pairing_link(link: str | None, uri: str, *, twice: bool = False) -> str | None:
    """`{link}wc?uri={the URI percent-encoded}` (AppKit's formatNativeUrl, or formatUniversalUrl for
    an https link); encoded `twice` for Android inside Telegram, as AppKit does there."""
    base = wallet_link(link)
    if not base or not uri:
        return None
    encoded = quote(uri, safe="")
    return f"{base}wc?uri={quote(encoded, safe='') if twice else encoded}"


def pairing_links(model: Model, wallet: Wallet, *, mobile: bool | None = None) -> list[tuple[str, str]]:
    """(kind, link with the URI) of a directory wallet's WalletConnect links for this device:
    its mobile deep link (or universal link) on a phone, its desktop app link on a computer.
    `mobile`: for a device of that kind rather than the session's (`env.mobile`): the linked
    phone's screen draws, and its "Open" opens, the phone's link (views/screens.py)."""
    uri = model.walletconnect.uri
    phone = model.env.mobile if mobile is None else mobile
    twice = model.env.telegram and model.env.platform == "android"
    link = (pairing_link(wallet.mobile_link, uri, twice=twice) if phone
            else pairing_link(wallet.desktop_link, uri))
    if link is None:
        return []
    return [("mobile" if phone else "desktop", link)]


def pairs_with(model: Model, wallet: Wallet) -> bool:
    """The wallet page pairs over WalletConnect: the wallet has a WalletConnect link (mobile or
    desktop app; on desktop its phone app scans the QR code) and the host enabled it."""
    if model.connectors.get(WALLET_CONNECT_ID) is None:
        return False
    return bool(platform.safe_link(wallet.mobile_link) or platform.safe_link(wallet.desktop_link))
