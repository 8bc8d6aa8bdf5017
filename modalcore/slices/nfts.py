"""NFTs of the active account for the Account view's NFTs tab (behaviour.md §2 "Account tabs").

The `nfts` service scans the network's ERC-721 `Transfer` logs for the account (self-hosted,
over the network's JSON-RPC) and answers plain items. The fetch starts when the tab is
selected, or when the tab is in sight for an account/network it was not fetched for (the
observer below: a network switch, a reconnect). A result is kept for 30 s (like the balance
caches); a failure shows 'Failed to fetch NFTs' and an empty state, and is not cached: selecting
the tab again retries.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Reply
from ..core.evolve import replace
from ..core.shape import On, Slice
from ..rules import limits as L
from ..rules.nft_images import usable_image
from . import snack
from .accounts import AccountState
from .connecting import Reattached
from ..services.domain.handles import NFTS

if TYPE_CHECKING:
    from .model import Model, Step

log = logging.getLogger(__name__)

NFTS_TAB = 1
CACHE_MS = 30_000
IN_FLIGHT_MS = 25_000  # a call older than this is taken as lost (more than the RPC time-outs)
NFT_NAMESPACES = ("eip155",)
FAILED = "Failed to fetch NFTs"


@dataclass(frozen=True)
class Nft:
    contract: str  # checksummed collection address
    token_id: str  # decimal (uint256)
    name: str  # the collection's name()
    symbol: str  # the collection's symbol()
    image: str = ""  # the token's image (an https URL or a small data:image), from on-chain metadata


@dataclass(frozen=True)
class NftsState:
    loading: bool = False
    items: tuple[Nft, ...] = ()
    error: str | None = None
    fetched_for: str | None = None  # the CAIP-10 address (chain included) the state belongs to
    fetched_at: int | None = None  # when the items arrived (None: never, or the fetch failed)
    requested_at: int | None = None
    supported: bool = True  # False: the namespace has no NFT scan (non-EVM)
    total: int = 0  # how many the scan found; at most MAX_NFTS of them are kept in `items`


def _current(model: Model) -> tuple[str | None, AccountState]:
    account = model.accounts.get(model.networks.active_namespace)
    return account.caip_address, account


def fetch(model: Model, now: int, *, force: bool = False) -> Step:
    """Scan for the active account's NFTs unless a fresh result (or a call) is there."""
    caip, account = _current(model)
    network = model.networks.active_network
    if not account.address or not caip or network is None:
        return model, []
    state = model.nfts
    mine = state.fetched_for == caip
    if mine and state.loading and now - (state.requested_at or 0) < IN_FLIGHT_MS:
        return model, []
    if model.networks.active_namespace not in NFT_NAMESPACES:
        return replace(model, nfts=NftsState(fetched_for=caip, fetched_at=now, supported=False)), []
    if (not force and mine and state.fetched_at is not None and state.error is None
            and now - state.fetched_at < CACHE_MS):
        return model, []
    if not network.rpc_urls:
        return _failed(replace(model, nfts=NftsState(fetched_for=caip)))
    call = NFTS.call(NFTS.args(rpc_url=network.rpc_urls[0], address=account.address or ""), NftsFetched, caip)
    # Refreshing the same account keeps its items on screen while the scan runs.
    state = NftsState(loading=True, items=state.items if mine else (), total=state.total if mine else 0,
                      fetched_for=caip, fetched_at=state.fetched_at if mine else None, requested_at=now)
    return replace(model, nfts=state), [call]


def _failed(model: Model) -> Step:
    state = replace(model.nfts, loading=False, items=(), error=FAILED, fetched_at=None, requested_at=None)
    return snack.show_error(replace(model, nfts=state), FAILED)


class NftItem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    contract: str
    token_id: int | str
    name: str | None = ""
    symbol: str | None = ""
    image: str | None = ""


class NftList(BaseModel):
    """What service `nfts` returns: the tokens the address holds."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    items: list[NftItem]


@dataclass(frozen=True)
class NftsFetched(Reply):
    """The NFTs of `key` (a CAIP address) came back."""

    result: NftList | None = None


def parse_items(result: NftList) -> tuple[Nft, ...]:
    """The service's answer as the slice keeps it; raises ValueError on a token id that is not
    a decimal number."""
    items = []
    for item in result.items:
        token_id = str(item.token_id)
        if not token_id.isdigit():
            raise ValueError(f"bad token id {token_id!r}")
        items.append(Nft(contract=item.contract, token_id=token_id, name=item.name or "", symbol=item.symbol or "",
                         image=usable_image(item.image)))  # checked again: the service may be another
    return tuple(items)


def on_nfts(model: Model, msg: NftsFetched, now: int) -> Step:
    state = model.nfts
    caip_address = msg.key
    if state.fetched_for != caip_address or not state.loading:
        return model, []  # an answer for another account or network, or a duplicate
    if msg.result is None:
        log.info("nfts scan failed: %s", msg.error)
        return _failed(model)
    try:
        items = parse_items(msg.result)
    except ValueError:
        log.warning("dropped a malformed nfts answer")
        return _failed(model)
    # an address may hold any number: the session keeps a bounded few and the count
    return replace(model, nfts=NftsState(items=items[:L.MAX_NFTS], total=len(items), fetched_for=caip_address,
                                         fetched_at=now)), []


def in_sight(model: Model) -> bool:
    account = model.accounts.get(model.networks.active_namespace)
    return (model.modal.open and model.router.view == "Account" and account.current_tab == NFTS_TAB
            and bool(account.address))


def observe(before: Model, after: Model, now: int) -> Step:
    """After every update: the NFTs tab in sight for an account/network it has nothing for (not
    even a failure) starts a fetch."""
    if not in_sight(after):
        return after, []
    caip, _ = _current(after)
    if after.nfts.fetched_for == caip:
        return after, []
    return fetch(after, now)


def on_reattached(model: Model, msg: Reattached, now: int) -> Step:
    """A call in flight does not survive an engine restart: forget it (the observer asks again
    if the tab is in sight)."""
    if model.nfts.loading:
        return replace(model, nfts=NftsState()), []
    return model, []


HANDLERS = (On(NftsFetched, on_nfts),)

SLICE = Slice("nfts", HANDLERS, observe=observe)
