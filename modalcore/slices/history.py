"""Transaction history for the Activity tab (behaviour.md §3 "Transaction" and its store, §4
"Transactions", §5 spam and chain filters, §8, §9 "Activity: eip155 only", which issue 28 widens
to Solana).

Pages come from the `history` service (self-hosted indexer or the hosted call) in the hosted
call's shape. A fetch appends a page and stores the next cursor; no transactions means empty; a
failure sets empty, clears the cursor, shows 'Failed to fetch transactions' and tracks
ERROR_FETCH_TRANSACTIONS.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from ..core.evolve import replace
from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Reply, Track
from ..core.msg import Msg
from ..core.shape import On, Slice
from ..rules import limits as L
from . import snack
from ..rules import texts
from ..services.domain.handles import HISTORY

if TYPE_CHECKING:
    from .model import Model, Step

log = logging.getLogger(__name__)

PAGE_SIZE = 10
FRESH_MS = 30_000  # selecting the tab again within this window keeps the list
ACTIVITY_TAB = 2
# behaviour.md §9 says Activity is eip155 only (AppKit's reading); issue 28 asks for Solana's too, read
# from the cluster (services/backend/solana_history.py)
ACTIVITY_NAMESPACES = ("eip155", "solana")
FAILED = texts.FAILED_TO_FETCH_TRANSACTIONS
NO_ACCOUNT = texts.NO_ACCOUNT_ADDRESS_FOR_TRANSACTIONS
ONRAMP_PROVIDER = "coinbase"


@dataclass(frozen=True)
class Transfer:
    direction: str  # "in", "out", "self"
    symbol: str
    name: str
    quantity: str  # decimal string
    icon_url: str = ""
    is_spam: bool = False


@dataclass(frozen=True)
class Transaction:
    id: str
    hash: str
    mined_at: int  # unix seconds
    chain: str | None
    status: str
    operation_type: str
    sent_from: str
    sent_to: str
    transfers: tuple[Transfer, ...] = ()
    onramp: str | None = None  # a purchase through this onramp provider ("coinbase")


@dataclass(frozen=True)
class HistoryState:
    transactions: tuple[Transaction, ...] = ()
    coinbase_transactions: tuple[Transaction, ...] = ()
    last_network_in_view: str | None = None
    account: str | None = None  # the CAIP-10 address the list belongs to
    loading: bool = False
    empty: bool = False
    next: str | None = None  # cursor of the next page
    loaded: bool = False  # a first page (or its failure) arrived
    requested: str | None = None  # cursor of the page being fetched ("" for the first)
    fetched_at: int | None = None
    now: int = 0  # when the history last changed: relative times are measured from it
    error: str | None = None


@dataclass(frozen=True)
class RequestedMoreHistory(Msg):
    """The end of the activity list came into view."""


def is_spam(tx: Transaction) -> bool:
    """behaviour.md §5: spam when all transfers are flagged spam NFTs (as every(), so none is all)."""
    return all(transfer.is_spam for transfer in tx.transfers)


def by_year_and_month(transactions: tuple[Transaction, ...], timezone: str = "UTC",
                      ) -> list[tuple[int, list[tuple[int, list[Transaction]]]]]:
    """behaviour.md §3: grouped by year, then month index (0-11), newest first, in the visitor's zone."""
    zone = time_zone(timezone)
    years: dict[int, dict[int, list[Transaction]]] = {}
    for tx in sorted(transactions, key=lambda t: t.mined_at, reverse=True):
        when = datetime.fromtimestamp(tx.mined_at, zone)
        years.setdefault(when.year, {}).setdefault(when.month - 1, []).append(tx)
    return [(year, sorted(months.items(), reverse=True)) for year, months in sorted(years.items(), reverse=True)]


def time_zone(name: str) -> tzinfo:
    try:
        return ZoneInfo(name) if name else UTC
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def _mined_at(value: object) -> int:
    if isinstance(value, int | float):
        return int(value)
    return int(datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp())


def parse_transaction(data: Any) -> Transaction:
    """One transaction of the hosted call's shape; raises KeyError/TypeError/ValueError."""
    meta = data["metadata"]
    transfers = []
    for item in data.get("transfers") or ():
        fungible = item.get("fungible_info") or {}
        nft = item.get("nft_info") or {}
        icon = fungible.get("icon") or {}
        transfers.append(Transfer(
            direction=str(item.get("direction", "")),
            symbol=str(fungible.get("symbol") or nft.get("name") or ""),
            name=str(fungible.get("name") or nft.get("name") or ""),
            quantity=str((item.get("quantity") or {}).get("numeric") or "0"),
            icon_url=str(icon.get("url") or "") if isinstance(icon, dict) else "",
            is_spam=bool(((nft.get("flags") or {}).get("is_spam")) is True),
        ))
    return Transaction(
        id=str(data["id"]),
        hash=str(meta.get("hash") or data["id"]),
        mined_at=_mined_at(meta["minedAt"]),
        chain=str(meta["chain"]) if meta.get("chain") else None,
        status=str(meta.get("status") or ""),
        operation_type=str(meta.get("operationType") or ""),
        sent_from=str(meta.get("sentFrom") or ""),
        sent_to=str(meta.get("sentTo") or ""),
        transfers=tuple(transfers),
        onramp=str(data["onramp"]) if data.get("onramp") else None,
    )


def fetch(model: Model, now: int, *, more: bool = False) -> Step:
    """The first page (again, unless fresh), or with `more` the next page when there is one."""
    state = model.history
    namespace = model.networks.active_namespace
    account = model.accounts.get(namespace)
    network = model.networks.active_network
    if not account.address or network is None:
        log.warning(NO_ACCOUNT)
        return replace(model, history=replace(state, error=NO_ACCOUNT)), []
    current = state.account == account.caip_address and state.last_network_in_view == network.id
    if current and state.loading:
        return model, []
    if namespace not in ACTIVITY_NAMESPACES:
        return replace(model, history=HistoryState(
            account=account.caip_address, last_network_in_view=network.id, loaded=True, empty=True,
            now=now)), []
    cursor: str | None = None
    if current and more and state.loaded:
        if state.next is None:
            return model, []
        cursor = state.next
    elif current and state.loaded and state.fetched_at is not None and now - state.fetched_at < FRESH_MS:
        return model, []
    else:
        state = HistoryState(account=account.caip_address, last_network_in_view=network.id)
    args: dict[str, object] = {
        "rpc_url": network.rpc_urls[0] if network.rpc_urls else "",
        "address": account.address,
        "chain": network.id,
        "cursor": cursor,
        "limit": PAGE_SIZE,
        "native_name": network.native.name,
        "native_symbol": network.native.symbol,
        "native_decimals": network.native.decimals,
    }
    if namespace == "solana":
        args["tokens"] = {token.address: [token.symbol, token.name] for token in network.tokens}
    elif cursor is None:
        # behaviour.md §7 history `onramp`: the first page also brings the account's Coinbase purchases
        # (the hosted call; the self-hosted indexer has no onramp records)
        args["onramp"] = ONRAMP_PROVIDER
    call = HISTORY.call_or_refusal(args, HistoryFetched, account.caip_address or "", {"cursor": cursor or ""})
    state = replace(state, loading=True, requested=cursor or "", now=now, error=None)
    return replace(model, history=state), [call]


def refresh(model: Model, now: int) -> Step:
    """The account's transactions changed (a send went out): forget the list; fetch it again
    at once when the Activity tab is showing."""
    state = model.history
    model = replace(model, history=HistoryState(account=state.account,
                                                last_network_in_view=state.last_network_in_view))
    account = model.accounts.get(model.networks.active_namespace)
    if account.current_tab == ACTIVITY_TAB and model.router.view == "Account":
        return fetch(model, now)
    return model, []


def on_more(model: Model, msg: RequestedMoreHistory, now: int) -> Step:
    return fetch(model, now, more=True)


def _failed(model: Model, now: int, cursor: str | None) -> Step:
    account = model.accounts.get(model.networks.active_namespace)
    track = Track("ERROR_FETCH_TRANSACTIONS", {
        "address": account.address or "",
        "projectId": model.project_id,
        "cursor": cursor,
        "isSmartAccount": account.preferred_account_type == "smartAccount",
    })
    state = replace(model.history, loading=False, loaded=True, empty=True, next=None, now=now)
    model, cmds = snack.show_error(replace(model, history=state), FAILED)
    return model, [track, *cmds]


class HistoryPage(BaseModel):
    """What service `history` returns: a page of transactions (each parsed on its own, a
    malformed one is dropped) and the cursor of the next page."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    data: list[dict[str, object]]
    next: str | int | None = None


@dataclass(frozen=True)
class HistoryFetched(Reply):
    """A page of `key`'s (a CAIP address) transactions came back; context["cursor"] is the page."""

    result: HistoryPage | None = None


def on_history(model: Model, msg: HistoryFetched, now: int) -> Step:
    state = model.history
    caip_address = msg.key
    cursor = msg.context.get("cursor", "")
    if state.account != caip_address or not state.loading or state.requested != cursor:
        return model, []  # an answer for another account, network or page
    result = msg.result
    if result is None:
        return _failed(model, now, cursor or None)
    page = []
    for item in result.data:
        try:
            page.append(parse_transaction(item))
        except (KeyError, TypeError, ValueError, AttributeError):
            log.warning("dropped a malformed transaction from the history")
    kept = [tx for tx in page if not is_spam(tx) and tx.chain == state.last_network_in_view]
    known = {tx.id for tx in state.transactions}
    transactions = (*state.transactions, *(tx for tx in kept if tx.id not in known))
    next_cursor = result.next
    if len(transactions) >= L.MAX_HISTORY_TRANSACTIONS:
        # the list a visitor scrolls is bounded: it ends here (no `more` is offered past it)
        transactions, next_cursor = transactions[:L.MAX_HISTORY_TRANSACTIONS], None
    bought = tuple(tx for tx in transactions if tx.onramp)
    state = replace(
        state,
        transactions=transactions,
        coinbase_transactions=bought,
        loading=False,
        loaded=True,
        empty=len(transactions) == 0,
        next=str(next_cursor) if next_cursor else None,
        fetched_at=now if not cursor else state.fetched_at,
        now=now,
    )
    return replace(model, history=state), []


HANDLERS = (On(RequestedMoreHistory, on_more), On(HistoryFetched, on_history))

SLICE = Slice("history", HANDLERS)
