"""A socket joined an existing session again (behaviour.md §4 "On start").

In order: the page's options apply again after a reload; the slices that lose something with
a reload react (the directory's pending wallet link, the NFTs fetch, a send whose wallet
request the page lost); then the connection re-syncs with the wallet, and a WalletConnect
pairing in flight is waited on again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.cmds import Cmd
from ..core.shape import On, Slice
from ..core.evolve import replace
from ..slices import directory_listing, modal, nfts, router, send_tx, swap_tx
from ..slices.connecting import Reattached
from . import connect as connection
from . import smart_account, solana_connect
from . import walletconnect

if TYPE_CHECKING:
    from ..slices.model import Model, Step

# Views nothing waits on: after a reload the modal starts over on its opening view (Account when
# connected), as AppKit's does, instead of the last view browsed (issue 39 item 9). A view that
# waits on the visitor or a wallet (sign-in, approval, a pairing, a preview) stays.
BROWSING = frozenset(("Account", "Connect", "Networks", "WhatIsAWallet", "WalletSend",
                      "WalletReceive", "RegisterAccountName", "RegisterAccountNameSuccess", "Swap", "OnRamp",
                      "ConnectSocials", "ConnectWallets", "CallsStatus"))


def start_over(model: Model, msg: Reattached, now: int) -> Step:
    if not msg.reloaded or model.router.view not in BROWSING:
        return model, []
    return replace(model, router=router.reset(model.router, modal.opening_view(model))), []


AFTER_RELOAD = (directory_listing.on_reattached, nfts.on_reattached, send_tx.on_reattached, swap_tx.on_reattached,
                smart_account.on_reattached, start_over)


def on_reattached(model: Model, msg: Reattached, now: int) -> Step:
    model = connection.with_reattach_options(model, msg)
    cmds: list[Cmd] = []
    for react in AFTER_RELOAD:
        model, more = react(model, msg, now)
        cmds += more
    model, resynced = connection.resync(model, msg, now)
    model, solana = solana_connect.resync_solana(model, msg, now)
    model, waiting = walletconnect.on_reattached(model, msg, now)
    return model, [*cmds, *resynced, *solana, *waiting]


SLICE = Slice("reattach", (On(Reattached, on_reattached),))
