"""The swap form's state and what is read from it (behaviour.md §1 swaps, §9 "Swap slippage default 1"):
the tokens the pickers offer (the native currency, the network's configured tokens and the hosted
list, with the visitor's balances), whether the network has swaps, what keeps the form from a
quote or a swap (insufficient balance is stated from the balances the account holds), and the
key a quote is for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..core.evolve import replace
from ..services.domain.swap_types import DEFAULT_SLIPPAGE, NATIVE, NOT_SUPPORTED_SWAPS
from .send_form import to_units

if TYPE_CHECKING:
    from .model import Model

INSUFFICIENT_BALANCE = "Insufficient balance"
SELECT_TOKEN = "Select a token"
ENTER_AMOUNT = "Enter an amount"
INVALID_AMOUNT = "Invalid amount"
READING_BALANCE = "Reading your balance…"


@dataclass(frozen=True)
class SwapToken:
    """A token the pickers offer: the native currency or a configured ERC-20, with the
    visitor's balance of it when known."""

    key: str  # address, or NATIVE
    symbol: str
    name: str
    decimals: int
    balance: str | None  # decimal string
    price: float | None
    icon_url: str = ""


@dataclass(frozen=True)
class SwapQuote:
    """A quote for the form `key`: raw amounts, and the wallet transactions it needs."""

    key: str
    amount_out: str
    min_out: str
    price_impact: str | None
    approve: tuple[tuple[str, str], ...] | None  # eth_sendTransaction params, when short
    swap: tuple[tuple[str, str], ...]
    fee_wei: str | None


@dataclass(frozen=True)
class PendingSwap:
    """The swap's wallet requests: the approve (then its mining), then the swap; one at a time.
    A request lost with a reload (or unanswered) is kept as lost, never sent again by itself."""

    swap_id: str
    eid: str
    step: Literal["approve", "approving", "swap"]
    approve: tuple[tuple[str, str], ...] | None
    swap: tuple[tuple[str, str], ...]
    status: Literal["waiting", "lost"] = "waiting"
    reason: str = ""
    approve_hash: str = ""
    receipt_asks: int = 0


@dataclass(frozen=True)
class SwapState:
    from_token: str | None = NATIVE
    to_token: str | None = None
    amount: str = ""
    slippage: str = str(DEFAULT_SLIPPAGE)
    picking: Literal["from", "to"] | None = None
    quoting: str | None = None  # the key of the form a quote is coming for
    quote: SwapQuote | None = None
    quote_error: str | None = None
    error: str | None = None  # the last refusal
    pending: PendingSwap | None = None  # one wallet request at a time
    loading: bool = False
    listed_for: str | None = None  # the network `listed` is for ("loading:<id>" while asked)
    listed: tuple[SwapToken, ...] = ()  # the hosted swap token list beyond the configured tokens
    not_supported: bool = False  # the network has no swap provider (behaviour.md §8)


def tokens(model: Model) -> tuple[SwapToken, ...]:
    """The native currency, then the network's configured tokens, with the balances held."""
    network = model.networks.active_network
    if network is None:
        return ()
    held = {t.address.lower() if t.address else NATIVE: t
            for t in model.accounts.get(model.networks.active_namespace).token_balance}
    native = held.get(NATIVE)
    rows = [SwapToken(NATIVE, network.native.symbol, network.native.name, network.native.decimals,
                      native.quantity_numeric if native else None, network.native_price)]
    for token in network.tokens:
        row = held.get(token.address.lower())
        rows.append(SwapToken(token.address, token.symbol, token.name, token.decimals,
                              row.quantity_numeric if row else None, token.price, token.icon_url))
    known = {row.key.lower() for row in rows}
    rows += [t for t in model.swap.listed if t.key.lower() not in known]
    return tuple(rows)


def token(model: Model, key: str | None) -> SwapToken | None:
    return next((t for t in tokens(model) if key is not None and t.key.lower() == key.lower()), None)


def supported(model: Model) -> bool:
    """Swaps are EVM only (behaviour.md §9 lists eip155 swap networks)."""
    return (model.networks.active_namespace == "eip155" and not model.networks.unsupported
            and not model.swap.not_supported)


def amount_units(model: Model) -> int | None:
    source = token(model, model.swap.from_token)
    if source is None or not model.swap.amount.strip():
        return None
    return to_units(model.swap.amount, source.decimals)


def problem(model: Model) -> str | None:
    """What keeps the form from a quote or a swap, first first; None when it can go on."""
    state = model.swap
    if not supported(model):
        return NOT_SUPPORTED_SWAPS
    source, target = token(model, state.from_token), token(model, state.to_token)
    if source is None or target is None:
        return SELECT_TOKEN
    if not state.amount.strip():
        return ENTER_AMOUNT
    units = amount_units(model)
    if units is None or units <= 0:
        return INVALID_AMOUNT
    if source.balance is None:
        return READING_BALANCE if model.balances.loading else INSUFFICIENT_BALANCE
    balance = to_units(source.balance, source.decimals) or 0
    if units > balance:
        return INSUFFICIENT_BALANCE
    return None


def form_key(model: Model) -> str:
    state = model.swap
    address = model.accounts.get(model.networks.active_namespace).address or ""
    return "|".join((model.networks.active or "", address.lower(), state.from_token or "",
                     state.to_token or "", state.amount.strip(), state.slippage))


def current_quote(model: Model) -> SwapQuote | None:
    quote = model.swap.quote
    return quote if quote is not None and quote.key == form_key(model) else None


def with_swap(model: Model, **changes: object) -> Model:
    return replace(model, swap=replace(model.swap, **changes))
