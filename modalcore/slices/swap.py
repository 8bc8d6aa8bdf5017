"""The swap form (SPEC §1 swaps, §9 "Swap slippage default 1"): from/to tokens with the
visitor's balances and the network's configured tokens, the amount with Max, the slippage, and a
live quote.

The quote is engine-side: typing an amount restarts a debounce timer (`QUOTE_DEBOUNCE_MS`); when
it fires for the form it was started for, service `swap_quote` is called (getAmountsOut on the
network's Uniswap V2 market, or the hosted /v1/convert/* API) and its typed answer comes back as
`SwapQuoted` for the form's key; an answer for a form that changed since is dropped. The answer
carries the transactions a press needs (approve when the allowance is short, then the swap),
so the wallet requests (slices/swap_tx.py) go out with no round trip.

Insufficient balance is stated from the balances the account holds, insufficient liquidity from
the quote's failure, both before any wallet request.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Call, CancelTimer, Cmd, Reply, StartTimer
from ..core.evolve import replace
from ..core.msg import Msg
from ..core.shape import Handler
from ..services.swap.types import DEFAULT_SLIPPAGE, INSUFFICIENT_LIQUIDITY, NATIVE, NOT_SUPPORTED_SWAPS
from .send_form import to_units

if TYPE_CHECKING:
    from .model import Model, Step

QUOTE_DEBOUNCE_MS = 300  # typing pauses this long before a quote is asked for
QUOTE_TIMER = "swap-quote"
SLIPPAGES = ("0.5", "1", "2", "3")  # percent; the default is SPEC §9's 1
NATIVE_RESERVE_WEI = 10**16  # Max of the native token keeps 0.01 for the fee until a quote says more
FEE_MARGIN = 2  # … then twice the quoted fee

INSUFFICIENT_BALANCE = "Insufficient balance"
SELECT_TOKEN = "Select a token"
ENTER_AMOUNT = "Enter an amount"
INVALID_AMOUNT = "Invalid amount"
QUOTE_NOT_READY = "The quote is not ready yet"
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
    not_supported: bool = False  # the network has no swap provider (SPEC §8)


class QuoteAnswer(BaseModel):
    """What service `swap_quote` returns (raw integer amounts as decimal strings)."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    amountIn: str
    amountOut: str
    minOut: str
    priceImpact: str | None = None
    allowance: str
    approve: dict[str, str] | None = None
    swap: dict[str, str]
    fee: str | None = None


class _ListedToken(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    address: str
    symbol: str
    name: str
    decimals: int
    icon: str = ""


class TokensAnswer(BaseModel):
    """What service `swap_tokens` returns."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    tokens: list[_ListedToken] = []


@dataclass(frozen=True)
class SwapTokensFetched(Reply):
    """The swap token list of network `key` came back (or the network has no swaps)."""

    result: TokensAnswer | None = None


@dataclass(frozen=True)
class SwapQuoted(Reply):
    """The quote for the form `key` came back."""

    result: QuoteAnswer | None = None


# ----- messages


@dataclass(frozen=True)
class PressedSwapPicker(Msg):
    side: str  # "from" | "to"


@dataclass(frozen=True)
class SelectedSwapToken(Msg):
    side: str
    key: str


@dataclass(frozen=True)
class ChangedSwapAmount(Msg):
    value: str


@dataclass(frozen=True)
class PressedSwapMax(Msg):
    pass


@dataclass(frozen=True)
class PressedSwapFlip(Msg):
    pass


@dataclass(frozen=True)
class SelectedSwapSlippage(Msg):
    value: str


@dataclass(frozen=True)
class SwapQuoteDue(Msg):
    """The debounce timer of the form `key` fired."""

    key: str


def change_amount(args: Any) -> Msg:
    return ChangedSwapAmount(str(getattr(args, "value", "")))


# ----- reading the form


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
    """Swaps are EVM only (SPEC §9 lists eip155 swap networks)."""
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


def _quotable(model: Model) -> bool:
    issue = problem(model)
    return issue in (None, INSUFFICIENT_BALANCE, READING_BALANCE)  # a quote still shows what it would give


def _with(model: Model, **changes: Any) -> Model:
    return replace(model, swap=replace(model.swap, **changes))


def _quote_call(model: Model) -> Call | None:
    network = model.networks.active_network
    address = model.accounts.get(model.networks.active_namespace).address
    units = amount_units(model)
    state = model.swap
    if network is None or not network.rpc_urls or address is None or units is None:
        return None
    return Call("swap_quote", {
        "network": network.id, "rpc_url": network.rpc_urls[0], "from_token": state.from_token,
        "to_token": state.to_token, "amount": str(units), "slippage": state.slippage, "user": address,
    }, SwapQuoted, form_key(model))


def requote(model: Model, *, delay_ms: int = 0) -> Step:
    """The form changed: forget the quote, and ask for the new one (after `delay_ms` of quiet)."""
    model = _with(model, quote=None, quote_error=None, error=None, quoting=None)
    if not _quotable(model):
        return model, [CancelTimer(QUOTE_TIMER)]
    key = form_key(model)
    model = _with(model, quoting=key)
    if delay_ms:
        return model, [StartTimer(QUOTE_TIMER, delay_ms, SwapQuoteDue(key))]
    call = _quote_call(model)
    return (model, [CancelTimer(QUOTE_TIMER), call]) if call is not None else (_with(model, quoting=None), [])


# ----- handlers


def on_picker(model: Model, msg: PressedSwapPicker, now: int) -> Step:
    if msg.side not in ("from", "to"):
        return model, []
    side: Literal["from", "to"] = "from" if msg.side == "from" else "to"
    return _with(model, picking=None if model.swap.picking == side else side), []


def on_select(model: Model, msg: SelectedSwapToken, now: int) -> Step:
    chosen = token(model, msg.key)
    if chosen is None or msg.side not in ("from", "to"):
        return model, []
    state = model.swap
    other = state.to_token if msg.side == "from" else state.from_token
    if other is not None and other.lower() == chosen.key.lower():  # picking the other side's: flip
        model = _with(model, from_token=state.to_token, to_token=state.from_token)
    elif msg.side == "from":
        model = _with(model, from_token=chosen.key)
    else:
        model = _with(model, to_token=chosen.key)
    return requote(_with(model, picking=None))


def on_amount(model: Model, msg: ChangedSwapAmount, now: int) -> Step:
    return requote(_with(model, amount=msg.value.strip()), delay_ms=QUOTE_DEBOUNCE_MS)


def on_max(model: Model, msg: PressedSwapMax, now: int) -> Step:
    source = token(model, model.swap.from_token)
    if source is None or source.balance is None:
        return _with(model, error=SELECT_TOKEN if source is None else INSUFFICIENT_BALANCE), []
    balance = to_units(source.balance, source.decimals) or 0
    if source.key == NATIVE:
        quote = model.swap.quote
        fee = int(quote.fee_wei) * FEE_MARGIN if quote is not None and quote.fee_wei else NATIVE_RESERVE_WEI
        balance = max(0, balance - fee)
    amount = format(Decimal(balance).scaleb(-source.decimals).normalize(), "f") if balance else "0"
    return requote(_with(model, amount=amount))


def on_flip(model: Model, msg: PressedSwapFlip, now: int) -> Step:
    state = model.swap
    quote = current_quote(model)
    target = token(model, state.to_token)
    amount = state.amount  # the quoted output becomes the amount in, as wallets do
    if quote is not None and target is not None:
        amount = format(Decimal(int(quote.amount_out)).scaleb(-target.decimals).normalize(), "f")
    return requote(_with(model, from_token=state.to_token, to_token=state.from_token, amount=amount,
                         picking=None))


def on_slippage(model: Model, msg: SelectedSwapSlippage, now: int) -> Step:
    if msg.value not in SLIPPAGES:
        return model, []
    return requote(_with(model, slippage=msg.value))


def on_quote_due(model: Model, msg: SwapQuoteDue, now: int) -> Step:
    if msg.key != form_key(model) or model.swap.quoting != msg.key:
        return model, []
    call = _quote_call(model)
    return (model, [call]) if call is not None else (_with(model, quoting=None), [])


def on_quoted(model: Model, msg: SwapQuoted, now: int) -> Step:
    if msg.key != form_key(model) or model.swap.quoting != msg.key:
        return model, []  # an answer for a form that changed since
    if msg.result is None:
        text = INSUFFICIENT_LIQUIDITY if "liquidity" in msg.error.lower() else msg.error
        return _with(model, quoting=None, quote=None, quote_error=text or QUOTE_NOT_READY), []
    answer = msg.result
    quote = SwapQuote(
        key=msg.key, amount_out=answer.amountOut, min_out=answer.minOut,
        price_impact=answer.priceImpact,
        approve=tuple(answer.approve.items()) if answer.approve else None,
        swap=tuple(answer.swap.items()), fee_wei=answer.fee,
    )
    return _with(model, quoting=None, quote=quote, quote_error=None), []


def on_tokens(model: Model, msg: SwapTokensFetched, now: int) -> Step:
    if msg.key != model.networks.active or model.swap.listed_for != f"loading:{msg.key}":
        return model, []
    if msg.result is None:
        return _with(model, listed_for=msg.key, not_supported=msg.error == NOT_SUPPORTED_SWAPS), []
    listed = tuple(SwapToken(t.address, t.symbol, t.name, t.decimals, None, None, t.icon)
                   for t in msg.result.tokens)
    return _with(model, listed_for=msg.key, listed=listed, not_supported=False), []


def observe(before: Model, after: Model, now: int) -> Step:
    """A new network or account starts a new form (a waiting wallet request stays known). The
    Swap view shown on an EVM network whose swap token list is not known asks for it (which
    also says whether the network has swaps at all)."""
    cmds: list[Cmd] = []
    if _owner(before) != _owner(after):
        pending, loading = after.swap.pending, after.swap.loading
        cmds = [CancelTimer(QUOTE_TIMER)] if after.swap.quoting else []
        after = replace(after, swap=SwapState(pending=pending, loading=loading))
    active = after.networks.active
    state = after.swap
    if (after.router.view == "Swap" and active is not None and after.networks.active_namespace == "eip155"
            and state.listed_for not in (active, f"loading:{active}")):
        after = _with(after, listed_for=f"loading:{active}")
        cmds.append(Call("swap_tokens", {"network": active}, SwapTokensFetched, active))
    return after, cmds


def _owner(model: Model) -> tuple[str | None, str | None]:
    return model.networks.active, model.accounts.get(model.networks.active_namespace).address


HANDLERS: dict[type[Msg], Handler] = {
    PressedSwapPicker: on_picker,
    SelectedSwapToken: on_select,
    ChangedSwapAmount: on_amount,
    PressedSwapMax: on_max,
    PressedSwapFlip: on_flip,
    SelectedSwapSlippage: on_slippage,
    SwapQuoteDue: on_quote_due,
    SwapQuoted: on_quoted,
    SwapTokensFetched: on_tokens,
}
