"""The wallet directory in a session: recommended and featured wallets, the All Wallets pages,
search, and the page of a wallet that is not installed (SPEC §1, §5, §7, §9).

Data comes through the `directory` service (`Call`), so `update` stays pure. What a view needs
is fetched when that view comes into sight (`observe`, run after every update): the Connect
view's picks (featured, 4 recommended) and the All Wallets pages of 40. Search waits 300 ms
after the last keystroke (a `StartTimer` with one key, so fast typing sends one query) and asks
for at most 100 results. Platform facts go with every query from the join's env.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..directory import platform
from ..directory.wallets import Wallet, wallets_from_data
from ..core.cmds import CancelTimer, Call, CallSettled, Cmd, Dispatch, Effect, EffectSettled, StartTimer
from ..core.msg import Msg
from ..core.shape import Handler, Slice, purpose
from ..rules import limits as L
from . import router
from .connecting import PressedWallet, Reattached
from .connectors import Connector

if TYPE_CHECKING:
    from .model import Model, Step

PAGE_ENTRIES = 40
IMAGES_PER_PAGE = 20  # SPEC §9: images for the first 20 of each page
RECOMMENDED_ENTRIES = 4
SEARCH_ENTRIES = 100
SEARCH_DEBOUNCE_MS = 300
SEARCH_TIMER = "directory.search"
SERVICE = "directory"
WALLET_PAGE = "WalletPage"
OPEN_TIMEOUT_MS = 10_000

Status = str  # "idle" | "loading" | "ready" | "error"


@dataclass(frozen=True)
class DirectoryState:
    wallets: tuple[Wallet, ...] = ()  # the All Wallets pages loaded so far, in order
    page: int = 0  # the last page loaded
    count: int = 0  # how many wallets the directory has for this session's filters
    pages: Status = "idle"
    featured: tuple[Wallet, ...] = ()
    featured_status: Status = "idle"
    recommended: tuple[Wallet, ...] = ()
    recommended_status: Status = "idle"
    search_text: str = ""  # what the search input holds
    search_query: str = ""  # the query of the results below ("" = no search)
    results: tuple[Wallet, ...] = ()
    searching: bool = False  # a query waits for its debounce or its answer
    search_seq: int = 0  # numbers queries; a late answer to an older one is dropped
    image_base: str = ""  # where the engine's image routes are, as the service tells
    selected: Wallet | None = None  # the wallet whose page is shown
    selected_custom: bool = False

    @property
    def has_more(self) -> bool:
        """Another page exists and the list is under its bound (past it, search finds the rest)."""
        return (self.pages == "ready" and self.page * PAGE_ENTRIES < self.count
                and len(self.wallets) < L.MAX_LISTED_WALLETS)


# ----- messages


@dataclass(frozen=True)
class PressedDirectoryWallet(Msg):
    wallet_id: str
    custom: bool = False


@dataclass(frozen=True)
class RequestedMoreWallets(Msg):
    """The end of the All Wallets list came into view."""


@dataclass(frozen=True)
class TypedWalletSearch(Msg):
    value: str


@dataclass(frozen=True)
class WalletSearchDue(Msg):
    """The search input has been still for 300 ms."""

    value: str


@dataclass(frozen=True)
class PressedWalletLink(Msg):
    kind: str  # "mobile" | "desktop" | "webapp"


# ----- pure helpers the views use


def rounded_count(count: int) -> str:
    """SPEC §9 / AppKit: a total shown rounded down to tens with '+' ("120+"); small ones as is."""
    return str(count) if count < 10 else f"{count // 10 * 10}+"


def wallet_image(state: DirectoryState, wallet: Wallet) -> str:
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
            return custom.image_url
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


# ----- queries


def _chains(model: Model) -> list[str]:
    return [network.id for network in model.networks.known] or list(model.options.networks)


def _args(model: Model, *, page: int, entries: int, include: Iterable[str] | None = None,
          exclude: Iterable[str] | None = None, search: str = "", chains: bool = True) -> dict[str, Any]:
    options = model.options
    return {
        "page": page,
        "entries": entries,
        "include": list(options.includeWalletIds if include is None else include),
        "exclude": list((*options.excludeWalletIds, *options.featuredWalletIds) if exclude is None else exclude),
        "search": search,
        "badge_type": "",
        "chains": _chains(model) if chains else [],
        "mobile": model.env.mobile,
        "universal": options.universalProvider,
    }


def _call(args: dict[str, Any], param: str) -> Call:
    return Call(SERVICE, args, purpose(SERVICE, param))


def fetch_picks(model: Model, *, retry: bool = False) -> Step:
    """Featured (the host's ids, in its order) and recommended (4) wallets for Connect; with
    `retry` also after a failure or a call lost with a restart."""
    state = model.directory
    wanted = ("idle", "error", "loading") if retry else ("idle",)
    featured_ids = model.options.featuredWalletIds
    need_featured = bool(featured_ids) and state.featured_status in wanted
    need_recommended = state.recommended_status in wanted
    if not need_featured and not need_recommended:
        return model, []
    cmds: list[Cmd] = []
    if need_featured:
        args = _args(model, page=1, entries=min(len(featured_ids), 100), include=featured_ids,
                     exclude=model.options.excludeWalletIds, chains=False)
        cmds.append(_call(args, "featured"))
        state = replace(state, featured_status="loading")
    if need_recommended:
        cmds.append(_call(_args(model, page=1, entries=RECOMMENDED_ENTRIES), "recommended"))
        state = replace(state, recommended_status="loading")
    return replace(model, directory=state), cmds


def fetch_page(model: Model, page: int) -> Step:
    state = replace(model.directory, pages="loading")
    call = _call(_args(model, page=page, entries=PAGE_ENTRIES), f"page:{page}")
    return replace(model, directory=state), [call]


def _shown(model: Model) -> str | None:
    if model.modal.open or model.options.embedded:
        return model.router.view
    return None


def observe(before: Model, after: Model, now: int) -> Step:
    """After every update: fetch what the view in sight needs and has not got. On entering a
    view, what failed (or was lost with a restart) is asked for again."""
    view = _shown(after)
    if view != "Connect" and view != "AllWallets":
        return after, []
    previous = _shown(before)
    entered = view != previous
    model, cmds = fetch_picks(after, retry=entered)
    if view == "AllWallets":
        state = model.directory
        if entered and previous != WALLET_PAGE and (state.search_text or state.search_query):
            # a fresh visit starts with an empty search (coming back from a wallet keeps it)
            state = replace(state, search_text="", search_query="", results=(), searching=False,
                            search_seq=state.search_seq + 1)
            cmds.append(CancelTimer(SEARCH_TIMER))
            model = replace(model, directory=state)
        if state.pages == "idle" or (entered and state.pages != "ready"):
            model, more = fetch_page(model, state.page + 1)
            cmds += more
    return model, cmds


def on_reattached(model: Model, msg: Reattached, now: int) -> Step:
    """Calls in flight do not survive an engine restart: what was loading is asked for again
    (a duplicate answer after a mere reconnect is dropped or harmless)."""
    state = model.directory
    if "loading" not in (state.pages, state.featured_status, state.recommended_status) and not state.searching:
        return model, []
    state = replace(
        state,
        pages="idle" if state.pages == "loading" else state.pages,
        featured_status="idle" if state.featured_status == "loading" else state.featured_status,
        recommended_status="idle" if state.recommended_status == "loading" else state.recommended_status,
    )
    model = replace(model, directory=state)
    if state.searching and state.search_text.strip():
        return search_now(model)
    return model, []


# ----- handlers


def on_more(model: Model, msg: RequestedMoreWallets, now: int) -> Step:
    if not model.directory.has_more or model.directory.search_query:
        return model, []
    return fetch_page(model, model.directory.page + 1)


def on_typed(model: Model, msg: TypedWalletSearch, now: int) -> Step:
    """Every keystroke restarts the 300 ms wait and outdates any query in flight."""
    text = msg.value[:L.TEXT_INPUT_CHARS]
    state = replace(model.directory, search_text=text, search_seq=model.directory.search_seq + 1)
    if not text.strip():
        state = replace(state, search_query="", results=(), searching=False)
        return replace(model, directory=state), [CancelTimer(SEARCH_TIMER)]
    state = replace(state, searching=True)
    return replace(model, directory=state), [StartTimer(SEARCH_TIMER, SEARCH_DEBOUNCE_MS, WalletSearchDue(text))]


def search_now(model: Model) -> Step:
    """Ask for the input's text now (at most 100 results, the host's include / exclude)."""
    state = model.directory
    query = state.search_text.strip()
    seq = state.search_seq + 1
    args = _args(model, page=1, entries=SEARCH_ENTRIES, search=query, exclude=model.options.excludeWalletIds)
    state = replace(state, search_query=query, searching=True, search_seq=seq)
    return replace(model, directory=state), [_call(args, f"search:{seq}")]


def on_search_due(model: Model, msg: WalletSearchDue, now: int) -> Step:
    if msg.value != model.directory.search_text or not msg.value.strip():
        return model, []
    return search_now(model)


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
                    purpose=purpose("directory.open", msg.kind), timeout_ms=OPEN_TIMEOUT_MS)
    return model, [effect]


def on_opened(model: Model, msg: EffectSettled, now: int, kind: str) -> Step:
    return model, []  # the browser opened the link (or could not): nothing to change


def on_result(model: Model, msg: CallSettled, now: int, param: str) -> Step:
    kind, _, arg = param.partition(":")
    state = model.directory
    result = msg.result if msg.ok and isinstance(msg.result, dict) else None
    wallets = tuple(wallets_from_data(result.get("data") or ())) if result is not None else ()
    count = result.get("count") if result is not None else None
    if result is not None and isinstance(result.get("image_base"), str):
        state = replace(state, image_base=result["image_base"][:512])
    if kind == "featured":
        order = {wallet_id: i for i, wallet_id in enumerate(model.options.featuredWalletIds)}
        ranked = tuple(sorted(wallets, key=lambda w: order.get(w.id, len(order))))
        state = replace(state, featured=ranked, featured_status="ready" if result is not None else "error")
    elif kind == "recommended":
        state = replace(state, recommended=wallets[:RECOMMENDED_ENTRIES],
                        recommended_status="ready" if result is not None else "error")
        if isinstance(count, int) and state.page == 0:
            state = replace(state, count=max(0, count))
    elif kind == "page":
        if state.pages != "loading" or arg != str(state.page + 1):
            return model, []
        if result is None:
            state = replace(state, pages="error")
        else:
            seen = {wallet.id for wallet in state.wallets}
            fresh = tuple(w for w in wallets if w.id not in seen)
            reported = count if isinstance(count, int) and count >= 0 else 0
            page = state.page + 1
            # an empty page ends the list whatever the count said
            state = replace(state, wallets=state.wallets + fresh, page=page, pages="ready",
                            count=reported if wallets else (page - 1) * PAGE_ENTRIES)
    elif kind == "search":
        if arg != str(state.search_seq):
            return model, []  # an older query's answer
        state = replace(state, results=wallets[:SEARCH_ENTRIES], searching=False)
    return replace(model, directory=state), []


def socials(model: Model) -> tuple[str, ...]:
    """The socials to list for this visitor (SPEC §5 Telegram rules over features.socials)."""
    return platform.visible_socials(model.options.features.socials, model.env)


HANDLERS: dict[type[Msg], Handler] = {
    PressedDirectoryWallet: on_pressed_wallet,
    RequestedMoreWallets: on_more,
    TypedWalletSearch: on_typed,
    WalletSearchDue: on_search_due,
    PressedWalletLink: on_pressed_link,
}

SLICE = Slice("directory", HANDLERS, effect_results={"directory.open": on_opened},
              call_results={SERVICE: on_result}, observe=observe)
