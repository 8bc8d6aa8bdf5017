"""Balances of the active account (behaviour.md §4 "Balance fetch", §5, §9 caches and retry window).

The engine fetches them itself (service `balances`: eth_getBalance and ERC-20 balanceOf over
JSON-RPC; for solana, service `solana_balances`: getBalance and getTokenAccountsByOwner). A failure blocks retries for 30 s and shows 'Token Balance Unavailable'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ..chains.catalog import Network
from ..core.cmds import Cmd, Reply
from ..core.evolve import replace
from ..core.shape import On, Slice
from ..rules.format import floor3, quantity
from . import snack
from .accounts import TokenBalance
from ..rules import texts
from ..services.domain.handles import BALANCES, SOLANA_BALANCES

if TYPE_CHECKING:
    from .model import Model, Step

RETRY_WINDOW_MS = 30_000
CACHE_MS = 30_000  # portfolio and native balance caches
SUPPORTED_NAMESPACES = ("eip155", "solana")
UNAVAILABLE = texts.TOKEN_BALANCE_UNAVAILABLE


class Balances(BaseModel):
    """What service `balances` returns: the native balance and ERC-20 balances by token
    address, in base units (ints, or the decimal / hex strings an RPC answers)."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    native: int | str
    tokens: dict[str, int | str] = {}


@dataclass(frozen=True)
class BalancesFetched(Reply):
    """The balances of `key` (a CAIP address) came back."""

    result: Balances | None = None


@dataclass(frozen=True)
class BalancesState:
    loading: bool = False
    last_failure_at: int | None = None
    fetched_at: int | None = None
    fetched_for: str | None = None  # caip address the cache holds


def fetch(model: Model, now: int, *, force: bool = False) -> Step:
    network = model.networks.active_network
    namespace = model.networks.active_namespace
    account = model.accounts.get(namespace)
    if network is None or namespace is None or account.address is None:
        return model, []
    if namespace not in SUPPORTED_NAMESPACES or network.testnet or model.networks.unsupported:
        zero = replace(account, balance=texts.ZERO_BALANCE, balance_symbol=network.native.symbol, token_balance=())
        return replace(model, accounts=model.accounts.with_account(namespace, zero)), []
    state = model.balances
    if state.last_failure_at is not None and now - state.last_failure_at < RETRY_WINDOW_MS:
        return replace(model, balances=replace(state, loading=False)), []
    cached = state.fetched_for == account.caip_address and state.fetched_at is not None
    if not force and cached and now - (state.fetched_at or 0) < CACHE_MS:
        return model, []
    if not network.rpc_urls:
        return _failed(model, now)
    rpc_url, address, tokens = network.rpc_urls[0], account.address or "", [t.address for t in network.tokens]
    call: Cmd
    if namespace == "solana":
        call = SOLANA_BALANCES.call(SOLANA_BALANCES.args(rpc_url=rpc_url, address=address, tokens=tokens),
                                    BalancesFetched, account.caip_address or "")
    else:
        call = BALANCES.call(BALANCES.args(rpc_url=rpc_url, address=address, tokens=tokens),
                             BalancesFetched, account.caip_address or "")
    return replace(model, balances=replace(state, loading=True)), [call]


def _failed(model: Model, now: int) -> Step:
    model = replace(model, balances=replace(model.balances, loading=False, last_failure_at=now))
    return snack.show_error(model, UNAVAILABLE)


def on_balances(model: Model, msg: BalancesFetched, now: int) -> Step:
    caip_address = msg.key
    namespace = model.networks.active_namespace
    account = model.accounts.get(namespace)
    network = model.networks.active_network
    if account.caip_address != caip_address or network is None:
        return replace(model, balances=replace(model.balances, loading=False)), []
    if msg.result is None:
        return _failed(model, now)
    try:
        tokens = _token_balances(network, msg.result)
    except ValueError:
        return _failed(model, now)
    native = tokens[0]
    updated = replace(
        account,
        balance=floor3(native.quantity_numeric),
        balance_symbol=network.native.symbol,
        token_balance=tuple(tokens),
    )
    balances = replace(model.balances, loading=False, last_failure_at=None, fetched_at=now,
                       fetched_for=caip_address)
    return replace(model, accounts=model.accounts.with_account(namespace or "", updated),
                   balances=balances), []


def _token_balances(network: Network, result: Balances) -> list[TokenBalance]:
    native_amount = quantity(result.native, network.native.decimals)
    price = network.native_price or 0.0
    rows = [TokenBalance(
        name=network.native.name, symbol=network.native.symbol, chain_id=network.id, address=None,
        value=float(native_amount) * price, price=price,
        quantity_decimals=str(network.native.decimals), quantity_numeric=str(native_amount),
    )]
    raw_by_address = {str(k).lower(): v for k, v in result.tokens.items()}
    for token in network.tokens:
        if token.decimals == 0:
            continue  # behaviour.md §5: tokens with 0 decimals are dropped
        raw = raw_by_address.get(token.address.lower())
        if raw is None:
            continue
        amount = quantity(raw, token.decimals)
        token_price = token.price or 0.0
        rows.append(TokenBalance(
            name=token.name, symbol=token.symbol, chain_id=network.id, address=token.address,
            value=float(amount) * token_price, price=token_price,
            quantity_decimals=str(token.decimals), quantity_numeric=str(amount),
            icon_url=token.icon_url,
        ))
    return rows


HANDLERS = (On(BalancesFetched, on_balances),)

SLICE = Slice("balances", HANDLERS)
