"""Platform rules (behaviour.md §5): which wallets a visitor's device can use, which socials it lists.

Every fact comes from the join frame's `env` (and the host's options), never guessed by the
server. All functions here are pure.

The two special wallets kept on mobile without a mobile link are Coinbase Wallet and Phantom.
Neither pairs through a WalletConnect deep link (the directory lists no mobile link for them),
but both open a dApp inside their in-app browser through a documented "browse" universal link,
which the wallet page offers instead. AppKit keeps the same two (Coinbase always, Phantom with
Solflare for Solana); Solflare is left out to keep behaviour.md §5's count of two. They are matched by
directory id or by rdns, so the rule also holds for a hosted directory's ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol
from urllib.parse import quote

from .wallets import Wallet, safe_link

__all__ = ["browse_link", "link_target", "safe_link", "special", "usable", "visible_socials"]


@dataclass(frozen=True)
class SpecialWallet:
    id: str
    rdns: str
    browse: str  # template with {url} and {ref}, both URL-encoded


MOBILE_SPECIAL_WALLETS: tuple[SpecialWallet, ...] = (
    SpecialWallet("coinbase", "com.coinbase.wallet", "https://go.cb-w.com/dapp?cb_url={url}"),
    SpecialWallet("phantom", "app.phantom", "https://phantom.app/ul/browse/{url}?ref={ref}"),
)


class EnvLike(Protocol):
    @property
    def mobile(self) -> bool: ...
    @property
    def platform(self) -> str: ...
    @property
    def telegram(self) -> bool: ...


def special(wallet: Wallet) -> SpecialWallet | None:
    for entry in MOBILE_SPECIAL_WALLETS:
        if wallet.id == entry.id or (wallet.rdns and wallet.rdns == entry.rdns):
            return entry
    return None


def usable(wallet: Wallet, *, mobile: bool, universal: bool) -> bool:
    """behaviour.md §5: on mobile, wallets with a mobile link plus the two special wallets; in a
    universal-provider setup, wallets with at least one link."""
    if universal and not wallet.has_link:
        return False
    if mobile and not wallet.mobile_link and special(wallet) is None:
        return False
    return True


def browse_link(wallet: Wallet, page_url: str) -> str | None:
    """The link that opens `page_url` inside a special wallet's in-app browser."""
    entry = special(wallet)
    if entry is None or not page_url.startswith(("https://", "http://")):
        return None
    ref = page_url.split("/", 3)[:3]
    return entry.browse.format(url=quote(page_url, safe=""), ref=quote("/".join(ref), safe=""))


def link_target(url: str) -> str:
    """Web links open in a new tab; app deep links replace nothing but must use `_self`."""
    return "_blank" if url.lower().startswith(("https://", "http://")) else "_self"


TELEGRAM_DROPPED: dict[str, frozenset[str]] = {
    "ios": frozenset({"google"}),
    "mac": frozenset({"x"}),
    "android": frozenset({"facebook", "x"}),
}


def visible_socials(socials: tuple[str, ...], env: EnvLike) -> tuple[str, ...]:
    """behaviour.md §5: inside Telegram, google is removed on iOS, x on Mac, facebook and x on Android.
    Everywhere socials are listed, they go through this function."""
    if not env.telegram:
        return socials
    dropped = TELEGRAM_DROPPED.get(env.platform, frozenset())
    return tuple(social for social in socials if social not in dropped)
