"""The swap's live quote: typing an amount restarts a debounce timer (`QUOTE_DEBOUNCE_MS`); when
it fires for the form it was started for, service `swap_quote` is called (getAmountsOut on the
network's Uniswap V2 market, or the hosted /v1/convert/* API) and its typed answer comes back as
`SwapQuoted` for the form's key; an answer for a form that changed since is dropped. The answer
carries the transactions a press needs (approve when the allowance is short, then the swap), so
the wallet requests (slices/swap_tx.py) go out with no round trip. Insufficient liquidity is
stated from the quote's failure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Cmd, Reply
from ..core.msg import Msg
from ..services.domain.swap_types import INSUFFICIENT_LIQUIDITY
from .quoting import Quoting
from .swap_form import INSUFFICIENT_BALANCE, READING_BALANCE, SwapQuote, amount_units, form_key, problem, with_swap
from ..services.domain.handles import SWAP_QUOTE

if TYPE_CHECKING:
    from .model import Model, Step

QUOTE_DEBOUNCE_MS = 300  # typing pauses this long before a quote is asked for
QUOTE_TIMER = "swap-quote"
QUOTE_NOT_READY = "The quote is not ready yet"


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


@dataclass(frozen=True)
class SwapQuoted(Reply):
    """The quote for the form `key` came back."""

    result: QuoteAnswer | None = None


@dataclass(frozen=True)
class SwapQuoteDue(Msg):
    """The debounce timer of the form `key` fired."""

    key: str


def _quotable(model: Model) -> bool:
    issue = problem(model)
    return issue in (None, INSUFFICIENT_BALANCE, READING_BALANCE)  # a quote still shows what it would give


def _quote_call(model: Model) -> Cmd | None:
    network = model.networks.active_network
    address = model.accounts.get(model.networks.active_namespace).address
    units = amount_units(model)
    state = model.swap
    if network is None or not network.rpc_urls or address is None or units is None:
        return None
    return SWAP_QUOTE.call_or_refusal({
        "network": network.id, "rpc_url": network.rpc_urls[0], "from_token": state.from_token,
        "to_token": state.to_token, "amount": str(units), "slippage": state.slippage, "user": address,
    }, SwapQuoted, form_key(model))


QUOTING = Quoting(QUOTE_TIMER, with_swap, _quotable, form_key, lambda model: model.swap.quoting, _quote_call,
                  SwapQuoteDue)


def requote(model: Model, *, delay_ms: int = 0) -> Step:
    """The form changed: forget the quote, and ask for the new one (after `delay_ms` of quiet)."""
    return QUOTING.requote(model, delay_ms)


def on_quote_due(model: Model, msg: SwapQuoteDue, now: int) -> Step:
    return QUOTING.on_due(model, msg.key)


def on_quoted(model: Model, msg: SwapQuoted, now: int) -> Step:
    if not QUOTING.current(model, msg.key):
        return model, []  # an answer for a form that changed since
    if msg.result is None:
        text = INSUFFICIENT_LIQUIDITY if msg.failure is not None and msg.failure.kind == "rejected" else msg.error
        return with_swap(model, quoting=None, quote=None, quote_error=text or QUOTE_NOT_READY), []
    answer = msg.result
    quote = SwapQuote(
        key=msg.key, amount_out=answer.amountOut, min_out=answer.minOut,
        price_impact=answer.priceImpact,
        approve=tuple(answer.approve.items()) if answer.approve else None,
        swap=tuple(answer.swap.items()), fee_wei=answer.fee,
    )
    return with_swap(model, quoting=None, quote=quote, quote_error=None), []
