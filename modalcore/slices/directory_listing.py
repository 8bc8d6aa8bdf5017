"""The directory's lists (behaviour.md §1, §9): the Connect view's picks (featured, 4 recommended) and
the All Wallets pages of 40, fetched when their view comes into sight (`observe`, run after every
update), asked for again after a restart, and the answers that fill them (search results too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.cmds import CancelTimer, Cmd
from ..core.evolve import replace
from ..core.msg import Msg
from .connecting import Reattached
from .directory_query import PAGE_ENTRIES, RECOMMENDED_ENTRIES, SEARCH_ENTRIES, DirectoryFetched, directory_call, query_args
from .directory_search import SEARCH_TIMER, search_now
from .directory_wallets import WALLET_PAGE

if TYPE_CHECKING:
    from .model import Model, Step


@dataclass(frozen=True)
class RequestedMoreWallets(Msg):
    """The end of the All Wallets list came into view."""



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
        args = query_args(model, page=1, entries=min(len(featured_ids), 100), include=featured_ids,
                     exclude=model.options.excludeWalletIds, chains=False)
        cmds.append(directory_call(args, "featured"))
        state = replace(state, featured_status="loading")
    if need_recommended:
        cmds.append(directory_call(query_args(model, page=1, entries=RECOMMENDED_ENTRIES), "recommended"))
        state = replace(state, recommended_status="loading")
    return replace(model, directory=state), cmds


def fetch_page(model: Model, page: int) -> Step:
    state = replace(model.directory, pages="loading")
    call = directory_call(query_args(model, page=page, entries=PAGE_ENTRIES), f"page:{page}")
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


def on_more(model: Model, msg: RequestedMoreWallets, now: int) -> Step:
    if not model.directory.has_more or model.directory.search_query:
        return model, []
    return fetch_page(model, model.directory.page + 1)



def on_result(model: Model, msg: DirectoryFetched, now: int) -> Step:
    kind, _, arg = msg.key.partition(":")
    state = model.directory
    result = msg.result
    wallets = result.data if result is not None else ()
    count = result.count if result is not None else None
    if result is not None and result.image_base is not None:
        state = replace(state, image_base=result.image_base[:512])
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
