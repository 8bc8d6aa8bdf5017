"""Directory wallets as a session shows them (behaviour.md §1, §5, §9): installed ones (an announced
connector with the wallet's rdns), the host's custom wallets, images, the links this device can
open, and the page of a wallet that is not installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote

from ..core.cmds import Dispatch, Effect, EffectReply
from ..core.evolve import replace
from ..core.msg import Msg
from ..directory.domain import platform
from ..directory.domain.wallets import Wallet
from ..icons import wallet_mark
from . import router
from .connecting import PressedWallet
from .connectors import Connector
from .directory_query import DirectoryState

if TYPE_CHECKING:
    from .model import Model, Step

WALLET_PAGE = "WalletPage"
OPEN_TIMEOUT_MS = 10_000


@dataclass(frozen=True)
class PressedDirectoryWallet(Msg):
    wallet_id: str
    custom: bool = False


@dataclass(frozen=True)
class PressedWalletLink(Msg):
    kind: str  # "mobile" | "desktop" | "webapp"



def rounded_count(count: int) -> str:
    """behaviour.md §9 / AppKit: a total shown rounded down to tens with '+' ("120+"); small ones as is."""
    return str(count) if count < 10 else f"{count // 10 * 10}+"


def wallet_image(state: DirectoryState, wallet: Wallet) -> str:
    """The directory's image; a wallet without one wears the icon set's mark (MetaMask, Trust, ...)
    when the set has it, else the monogram the engine draws."""
    mark = None if wallet.image_id else wallet_mark(wallet.id)
    if mark is not None:
        return f"{state.image_base}{mark}"
    key = wallet.image_id or wallet.id
    return f"{state.image_base}/getWalletImage/{quote(key, safe='')}"


def custom_wallets(model: Model) -> tuple[Wallet, ...]:
    """The host's custom wallets as directory wallets, with the platform rules applied."""
    if not model.options.customWallets:
        return ()
    wallets = (
        Wallet(id=c.id, name=c.name, mobile_link=platform.safe_link(c.mobile_link),
               desktop_link=platform.safe_link(c.desktop_link), webapp_link=platform.safe_link(c.webapp_link))
        for c in model.options.customWallets
    )
    return tuple(w for w in wallets if _usable(model, w))


def custom_image(model: Model, wallet: Wallet) -> str:
    for custom in model.options.customWallets:
        if custom.id == wallet.id and custom.image_url:
            # a path names the host page's file: the renderer reads a path as the engine's
            image = custom.image_url
            return model.origin + image if image.startswith("/") and not image.startswith("//") else image
    base = model.directory.image_base
    return f"{base}/getWalletImage/{quote(wallet.id, safe='')}?name={quote(wallet.name, safe='')}"


def installed(model: Model) -> frozenset[str]:
    """The rdns of the announced wallets: a directory wallet with one of them is installed here."""
    return frozenset(c.rdns for c in model.connectors.items if c.rdns)


def connector_for(model: Model, wallet: Wallet) -> Connector | None:
    if not wallet.rdns:
        return None
    return next((c for c in model.connectors.items if c.rdns == wallet.rdns), None)


def total(model: Model) -> int:
    state = model.directory
    return state.count + len(state.featured) + len(custom_wallets(model))


def page_url(model: Model) -> str:
    return model.options.metadata.url or model.origin


def wallet_links(model: Model, wallet: Wallet) -> list[tuple[str, str]]:
    """(kind, url) of the links this device can open for `wallet`, in the order shown."""
    links: list[tuple[str, str]] = []
    if model.env.mobile:
        mobile = platform.safe_link(wallet.mobile_link) or platform.browse_link(wallet, page_url(model))
        if mobile:
            links.append(("mobile", mobile))
    else:
        desktop = platform.safe_link(wallet.desktop_link)
        if desktop:
            links.append(("desktop", desktop))
    webapp = platform.safe_link(wallet.webapp_link)
    if webapp and webapp.lower().startswith(("https://", "http://")):
        links.append(("webapp", webapp))
    return links


def _usable(model: Model, wallet: Wallet) -> bool:
    return platform.usable(wallet, mobile=model.env.mobile, universal=model.options.universalProvider)


def socials(model: Model) -> tuple[str, ...]:
    """The socials to list for this visitor (behaviour.md §5 Telegram rules over features.socials)."""
    return platform.visible_socials(model.options.features.socials, model.env)



def find_wallet(model: Model, wallet_id: str, custom: bool) -> Wallet | None:
    if custom:
        return next((w for w in custom_wallets(model) if w.id == wallet_id), None)
    state = model.directory
    for group in (state.featured, state.recommended, state.results, state.wallets):
        for wallet in group:
            if wallet.id == wallet_id:
                return wallet
    return None


def on_pressed_wallet(model: Model, msg: PressedDirectoryWallet, now: int) -> Step:
    wallet = find_wallet(model, msg.wallet_id, msg.custom)
    if wallet is None:
        return model, []
    connector = connector_for(model, wallet)
    if connector is not None:  # installed here: connect it like any announced wallet
        return model, [Dispatch(PressedWallet(connector.id))]
    state = replace(model.directory, selected=wallet, selected_custom=msg.custom)
    return replace(model, directory=state, router=router.push(model.router, WALLET_PAGE, wallet.id)), []


def on_pressed_link(model: Model, msg: PressedWalletLink, now: int) -> Step:
    wallet = model.directory.selected
    if model.router.view != WALLET_PAGE or wallet is None:
        return model, []
    url = dict(wallet_links(model, wallet)).get(msg.kind)
    if url is None:
        return model, []
    model, eid = model.next_id("e")
    effect = Effect(eid=eid, kind="open_url", req={"url": url, "target": platform.link_target(url)},
                    reply=WalletLinkOpened, key=msg.kind, timeout_ms=OPEN_TIMEOUT_MS)
    return model, [effect]


@dataclass(frozen=True)
class WalletLinkOpened(EffectReply):
    """The browser opened a wallet link, or could not (`key`: the link kind)."""


def on_opened(model: Model, msg: WalletLinkOpened, now: int) -> Step:
    return model, []  # the browser opened the link (or could not): nothing to change
