"""The Buy form's quote (behaviour.md §3 onramp quote: fees, subtotal, total, purchaseAmount; §8: a
failed quote is an estimate, marked as one): an edit forgets the quote and asks again (a typed
amount after `QUOTE_DEBOUNCE_MS` of quiet, as the swap's) through service `onramp_quote`; only the
answer for the form as it still is counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Cmd, Reply
from ..core.msg import Msg
from .onramp_state import OnrampQuote, PurchaseCurrency, problem, purchase, quote_key, with_onramp
from .quoting import Quoting
from ..services.domain.handles import ONRAMP_QUOTE

if TYPE_CHECKING:
    from .model import Model, Step

QUOTE_DEBOUNCE_MS = 300
QUOTE_TIMER = "onramp-quote"


class QuoteAnswer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    fees: str | float
    subtotal: str | float
    total: str | float
    purchaseAmount: str | float
    quoteId: str = ""
    estimate: bool = False


@dataclass(frozen=True)
class OnrampQuoted(Reply):
    result: QuoteAnswer | None = None


@dataclass(frozen=True)
class OnrampQuoteDue(Msg):
    key: str


def _price(model: Model, currency: PurchaseCurrency) -> str | None:
    network = model.networks.active_network
    if network is None:
        return None
    if currency.symbol == network.native.symbol:
        return str(network.native_price) if network.native_price else None
    token = next((t for t in network.tokens if t.symbol == currency.symbol), None)
    return str(token.price) if token is not None and token.price else None


def _quote_call(model: Model) -> Cmd | None:
    currency = purchase(model)
    network = model.networks.active_network
    if currency is None or network is None:
        return None
    return ONRAMP_QUOTE.call_or_refusal({
        "network": network.id, "purchase_currency": currency.id, "payment_currency": model.onramp.payment,
        "amount": model.onramp.amount.strip(), "price": _price(model, currency), "decimals": min(6, currency.decimals),
    }, OnrampQuoted, quote_key(model))


QUOTING = Quoting(QUOTE_TIMER, with_onramp, lambda model: problem(model) is None, quote_key,
                  lambda model: model.onramp.quoting, _quote_call, OnrampQuoteDue)


def requote(model: Model, *, delay_ms: int = 0) -> Step:
    """The form changed: forget the quote, and ask for the new one (after `delay_ms` of quiet)."""
    return QUOTING.requote(model, delay_ms)


def on_quote_due(model: Model, msg: OnrampQuoteDue, now: int) -> Step:
    return QUOTING.on_due(model, msg.key)


def on_quoted(model: Model, msg: OnrampQuoted, now: int) -> Step:
    if not QUOTING.current(model, msg.key):
        return model, []  # an answer for a form that changed since
    if msg.result is None:
        return with_onramp(model, quoting=None, quote_error=msg.error or "No quote"), []
    answer = msg.result
    quote = OnrampQuote(msg.key, str(answer.fees), str(answer.subtotal), str(answer.total),
                        str(answer.purchaseAmount), answer.estimate)
    return with_onramp(model, quoting=None, quote=quote), []
