"""AllWallets: every wallet the visitor can pick, with search and infinite scroll (behaviour.md §9).

Pages of 40 arrive as the end of the list comes into view (the list offers `more` while the
directory has more); a search input waits 300 ms after typing and shows at most 100 results.
"""

from __future__ import annotations


from ..slices.model import Model
from ..slices import directory_wallets
from ..slices.directory_listing import RequestedMoreWallets
from ..slices.directory_search import TypedWalletSearch
from ..wire.frames import TextArgs
from ..wire.nodes import Node, node
from . import parts
from .wallet_list import all_wallet_rows, search_rows

TITLE = "All Wallets"
# What body() reads (views/__init__.py memoises it on these slices being the same objects).
READS = ("connectors", "directory", "options", "env", "origin")
SKELETONS_FIRST = 8
SKELETONS_MORE = 4


def _typed(args: object) -> TypedWalletSearch:
    if not isinstance(args, TextArgs):
        raise TypeError("a change carries text")
    return TypedWalletSearch(args.value)


def _skeletons(count: int) -> Node:
    tiles = [node("skeleton", f"all/skeleton/{i}", w=72, h=96) for i in range(count)]
    return node("stack", "all/loading", tiles, dir="row", gap=8, wrap=True, label="Loading wallets")


def _search(model: Model) -> Node:
    state = model.directory
    total = directory_wallets.total(model)
    placeholder = f"Search {directory_wallets.rounded_count(total)} wallets" if total else "Search wallet"
    return node("input", "all/search", on={"change": _typed}, value=state.search_text,
                placeholder=placeholder, kind="search", label="Search wallet")


def body(model: Model) -> Node:
    state = model.directory
    children: list[Node] = [_search(model)]
    if state.search_text.strip():
        if state.searching:
            children.append(_skeletons(SKELETONS_MORE))
        else:
            rows = search_rows(model)
            children.append(node("stack", "all/list", rows, dir="row", gap=8, wrap=True) if rows else
                            _empty("No Wallet found"))
        return parts.column("all/body", children, gap=12)
    rows = all_wallet_rows(model)
    more = {"more": RequestedMoreWallets()} if state.has_more else None
    if rows:
        children.append(node("stack", "all/list", rows, on=more, dir="row", gap=8, wrap=True))
    if state.pages in ("idle", "loading"):
        children.append(_skeletons(SKELETONS_MORE if rows else SKELETONS_FIRST))
    elif not rows:
        text = ("The wallet list is unavailable right now." if state.pages == "error"
                else "No Wallet found")
        children.append(_empty(text))
    return parts.column("all/body", children, gap=12)


def _empty(text: str) -> Node:
    """An empty list as AppKit draws it: a muted wallet mark above the words, centred in the
    space the grid would take, not a bare line of text."""
    return node("stack", "all/empty", [
        node("icon", "all/empty/icon", name="wallet", size=40, tone="muted"),
        node("text", "all/empty/text", text=text, variant="body", tone="muted"),
    ], dir="col", gap=12, align="center", pad=32)
