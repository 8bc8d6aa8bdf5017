"""The wallet directory in a session: recommended and featured wallets, the All Wallets pages,
search, and the page of a wallet that is not installed (behaviour.md §1, §5, §7, §9).

Data comes through the `directory` service (`Call`), so `update` stays pure. What a view needs
is fetched when that view comes into sight (`observe`, run after every update): the Connect
view's picks (featured, 4 recommended) and the All Wallets pages of 40. Search waits 300 ms
after the last keystroke (a `StartTimer` with one key, so fast typing sends one query) and asks
for at most 100 results. Platform facts go with every query from the join's env.

The slice is assembled here from its parts: state and queries (`directory_query`), the lists
(`directory_listing`), search (`directory_search`) and wallets (`directory_wallets`).
"""

from __future__ import annotations

from ..core.shape import On, Slice
from .directory_listing import RequestedMoreWallets, observe, on_more, on_result
from .directory_query import DirectoryFetched
from .directory_search import TypedWalletSearch, WalletSearchDue, on_search_due, on_typed
from .directory_wallets import (
    PressedDirectoryWallet,
    PressedWalletLink,
    WalletLinkOpened,
    on_opened,
    on_pressed_link,
    on_pressed_wallet,
)

HANDLERS = (
    On(WalletLinkOpened, on_opened),
    On(PressedDirectoryWallet, on_pressed_wallet),
    On(RequestedMoreWallets, on_more),
    On(TypedWalletSearch, on_typed),
    On(WalletSearchDue, on_search_due),
    On(PressedWalletLink, on_pressed_link),
    On(DirectoryFetched, on_result),
)

SLICE = Slice("directory", HANDLERS, observe=observe)
