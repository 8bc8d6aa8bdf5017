"""The Buy form's state and what is read from it (behaviour.md §1 onramp providers, §3 purchase and
payment currencies, quote; §9 default limits and onramp namespaces): the providers serving the
active namespace, the chosen purchase currency, the payment method's limits, what keeps the form
from a quote, and the key a quote is for."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from ..core.evolve import replace
from ..rules.format import fiat
from ..services.domain.onramp_defaults import PROVIDERS

if TYPE_CHECKING:
    from .model import Model

VIEW = "OnRamp"
DEFAULT_METHOD = "card"
SUPPORTED_NAMESPACES = ("eip155", "solana")  # behaviour.md §9: onramp on eip155 and solana
CHOOSE_CURRENCY = "Choose a currency to buy"
NOT_SUPPORTED = "Buying is not available on this network"


@dataclass(frozen=True)
class PurchaseCurrency:
    id: str
    symbol: str
    name: str
    decimals: int = 18


@dataclass(frozen=True)
class PaymentCurrency:
    id: str
    limits: tuple[tuple[str, str, str], ...] = ()  # (method, min, max)


@dataclass(frozen=True)
class OnrampQuote:
    key: str
    fees: str
    subtotal: str
    total: str
    purchase_amount: str
    estimate: bool = False


@dataclass(frozen=True)
class OnrampState:
    provider: str | None = None
    purchase: str | None = None  # a purchase currency id
    payment: str = "USD"
    amount: str = "100"
    options_for: str | None = None  # the network the options are for
    purchases: tuple[PurchaseCurrency, ...] = ()
    payments: tuple[PaymentCurrency, ...] = ()
    quoting: str | None = None
    quote: OnrampQuote | None = None
    quote_error: str | None = None
    error: str | None = None
    opening: bool = False
    polls: int = 0


def providers(model: Model) -> tuple[tuple[str, str, str], ...]:
    """(id, name, fee range) of the providers serving the active namespace."""
    namespace = model.networks.active_namespace or ""
    return tuple((pid, name, fees) for pid, name, namespaces, fees in PROVIDERS if namespace in namespaces)


def purchase(model: Model) -> PurchaseCurrency | None:
    return next((c for c in model.onramp.purchases if c.id == model.onramp.purchase), None)


def limits(model: Model) -> tuple[Decimal, Decimal] | None:
    payment = next((p for p in model.onramp.payments if p.id == model.onramp.payment), None)
    if payment is None:
        return None
    limit = next((lim for lim in payment.limits if lim[0] == DEFAULT_METHOD), payment.limits[0] if payment.limits else None)
    if limit is None:
        return None
    return Decimal(limit[1]), Decimal(limit[2])


def _amount(model: Model) -> Decimal | None:
    try:
        value = Decimal(model.onramp.amount.replace(",", "."))
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def problem(model: Model) -> str | None:
    state = model.onramp
    if model.networks.active_namespace not in SUPPORTED_NAMESPACES:
        return NOT_SUPPORTED
    if purchase(model) is None:
        return CHOOSE_CURRENCY
    amount = _amount(model)
    bounds = limits(model)
    if amount is None or amount <= 0:
        return "Enter an amount"
    if bounds is not None and not bounds[0] <= amount <= bounds[1]:
        return f"Enter an amount between {fiat(bounds[0])} and {fiat(bounds[1])} {state.payment}"
    return None


def quote_key(model: Model) -> str:
    state = model.onramp
    return "|".join((model.networks.active or "", state.purchase or "", state.payment, state.amount.strip()))


def current_quote(model: Model) -> OnrampQuote | None:
    quote = model.onramp.quote
    return quote if quote is not None and quote.key == quote_key(model) else None


def with_onramp(model: Model, **changes: object) -> Model:
    return replace(model, onramp=replace(model.onramp, **changes))
