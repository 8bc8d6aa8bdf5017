"""Buy crypto with fiat (SPEC §1 onramp providers Coinbase (EVM only) and Meld (EVM and Solana),
fee range 1-2 %; §3 purchase and payment currencies, quote; §8 fallbacks; §9 default limits).

Opening the OnRamp view asks for the options of the active network (`onramp_options`: the
provider's currencies, else the built-in defaults); the amount (a preset or typed, debounced as
the swap's) gets a quote (`onramp_quote`: fees, subtotal, total, what it buys; an estimate is
marked as one); Continue asks for the provider URL (`onramp_url`) and opens it through the
`open_url` effect, returns to Account and refreshes the balances for a while, so the bought
token shows when the provider delivers it.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Call, CancelTimer, Cmd, Effect, EffectReply, Reply, StartTimer
from ..core.evolve import replace
from ..core.msg import Msg
from ..core.shape import Handler, Slice
from ..rules.format import fiat
from ..services.onramp.defaults import PROVIDERS
from . import balances, history, router, snack

if TYPE_CHECKING:
    from .model import Model, Step

VIEW = "OnRamp"
QUOTE_DEBOUNCE_MS = 300
QUOTE_TIMER = "onramp-quote"
POLL_TIMER = "onramp-poll"
POLL_MS = 3_000  # while the provider delivers, the balances are read this often …
POLLS = 40  # … this many times (two minutes)
OPEN_TIMEOUT_MS = 10_000
PRESETS = ("50", "100", "250", "500")
DEFAULT_METHOD = "card"
SUPPORTED_NAMESPACES = ("eip155", "solana")  # SPEC §9: onramp on eip155 and solana

CHOOSE_PROVIDER = "Choose a provider"
CHOOSE_CURRENCY = "Choose a currency to buy"
NOT_SUPPORTED = "Buying is not available on this network"
OPENED = "Complete the purchase in the provider's window"


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


# ----- replies


class _Limit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    id: str
    min: str | float | int
    max: str | float | int


class _Payment(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    id: str
    payment_method_limits: list[_Limit] = []


class _Network(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    chain_id: str | int = ""
    contract_address: str = ""


class _Purchase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    id: str
    name: str = ""
    symbol: str = ""
    decimals: int = 18
    networks: list[_Network] = []


class OptionsAnswer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    paymentCurrencies: list[_Payment] = []
    purchaseCurrencies: list[_Purchase] = []


class QuoteAnswer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    fees: str | float
    subtotal: str | float
    total: str | float
    purchaseAmount: str | float
    quoteId: str = ""
    estimate: bool = False


class UrlAnswer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    url: str


@dataclass(frozen=True)
class OnrampOptionsFetched(Reply):
    result: OptionsAnswer | None = None


@dataclass(frozen=True)
class OnrampQuoted(Reply):
    result: QuoteAnswer | None = None


@dataclass(frozen=True)
class OnrampUrlMade(Reply):
    result: UrlAnswer | None = None


@dataclass(frozen=True)
class OnrampUrlOpened(EffectReply):
    """The browser opened the provider's page (or could not)."""


# ----- messages


@dataclass(frozen=True)
class PressedOnrampProvider(Msg):
    provider: str


@dataclass(frozen=True)
class SelectedOnrampCurrency(Msg):
    currency: str


@dataclass(frozen=True)
class SelectedOnrampPayment(Msg):
    currency: str


@dataclass(frozen=True)
class ChangedOnrampAmount(Msg):
    value: str


@dataclass(frozen=True)
class PressedOnrampPreset(Msg):
    value: str


@dataclass(frozen=True)
class PressedOnrampContinue(Msg):
    pass


@dataclass(frozen=True)
class OnrampQuoteDue(Msg):
    key: str


@dataclass(frozen=True)
class OnrampPollDue(Msg):
    pass


def change_amount(args: Any) -> Msg:
    return ChangedOnrampAmount(str(getattr(args, "value", "")))


# ----- reading the state


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


def _with(model: Model, **changes: Any) -> Model:
    return replace(model, onramp=replace(model.onramp, **changes))


def _price(model: Model, currency: PurchaseCurrency) -> str | None:
    network = model.networks.active_network
    if network is None:
        return None
    if currency.symbol == network.native.symbol:
        return str(network.native_price) if network.native_price else None
    token = next((t for t in network.tokens if t.symbol == currency.symbol), None)
    return str(token.price) if token is not None and token.price else None


def _quote_call(model: Model) -> Call | None:
    currency = purchase(model)
    network = model.networks.active_network
    if currency is None or network is None:
        return None
    return Call("onramp_quote", {
        "network": network.id, "purchase_currency": currency.id, "payment_currency": model.onramp.payment,
        "amount": model.onramp.amount.strip(), "price": _price(model, currency), "decimals": min(6, currency.decimals),
    }, OnrampQuoted, quote_key(model))


def requote(model: Model, *, delay_ms: int = 0) -> Step:
    model = _with(model, quote=None, quote_error=None, error=None, quoting=None)
    if problem(model) is not None:
        return model, [CancelTimer(QUOTE_TIMER)]
    key = quote_key(model)
    model = _with(model, quoting=key)
    if delay_ms:
        return model, [StartTimer(QUOTE_TIMER, delay_ms, OnrampQuoteDue(key))]
    call = _quote_call(model)
    return (model, [CancelTimer(QUOTE_TIMER), call]) if call is not None else (_with(model, quoting=None), [])


# ----- handlers


def on_provider(model: Model, msg: PressedOnrampProvider, now: int) -> Step:
    if msg.provider not in {pid for pid, _, _ in providers(model)}:
        return model, []
    return _with(model, provider=msg.provider, error=None), []


def on_currency(model: Model, msg: SelectedOnrampCurrency, now: int) -> Step:
    if not any(c.id == msg.currency for c in model.onramp.purchases):
        return model, []
    return requote(_with(model, purchase=msg.currency))


def on_payment(model: Model, msg: SelectedOnrampPayment, now: int) -> Step:
    if not any(p.id == msg.currency for p in model.onramp.payments):
        return model, []
    return requote(_with(model, payment=msg.currency))


def on_amount(model: Model, msg: ChangedOnrampAmount, now: int) -> Step:
    return requote(_with(model, amount=msg.value.strip()), delay_ms=QUOTE_DEBOUNCE_MS)


def on_preset(model: Model, msg: PressedOnrampPreset, now: int) -> Step:
    if msg.value not in PRESETS:
        return model, []
    return requote(_with(model, amount=msg.value))


def on_quote_due(model: Model, msg: OnrampQuoteDue, now: int) -> Step:
    if msg.key != quote_key(model) or model.onramp.quoting != msg.key:
        return model, []
    call = _quote_call(model)
    return (model, [call]) if call is not None else (_with(model, quoting=None), [])


def on_quoted(model: Model, msg: OnrampQuoted, now: int) -> Step:
    if msg.key != quote_key(model) or model.onramp.quoting != msg.key:
        return model, []
    if msg.result is None:
        return _with(model, quoting=None, quote_error=msg.error or "No quote"), []
    answer = msg.result
    quote = OnrampQuote(msg.key, str(answer.fees), str(answer.subtotal), str(answer.total),
                        str(answer.purchaseAmount), answer.estimate)
    return _with(model, quoting=None, quote=quote), []


def on_options(model: Model, msg: OnrampOptionsFetched, now: int) -> Step:
    if msg.key != model.networks.active:
        return model, []
    if msg.result is None:  # the service falls back itself; a failure here leaves the view usable
        return _with(model, options_for=msg.key, error=msg.error), []
    reference = (model.networks.active or ":").split(":", 1)[1]
    purchases = tuple(
        PurchaseCurrency(c.id, c.symbol or c.id, c.name or c.id, c.decimals)
        for c in msg.result.purchaseCurrencies
        if not c.networks or any(str(n.chain_id) == reference for n in c.networks))
    payments = tuple(PaymentCurrency(p.id, tuple((lim.id, str(lim.min), str(lim.max)) for lim in p.payment_method_limits))
                     for p in msg.result.paymentCurrencies)
    chosen = model.onramp.purchase if any(c.id == model.onramp.purchase for c in purchases) else (
        purchases[0].id if purchases else None)
    payment = model.onramp.payment if any(p.id == model.onramp.payment for p in payments) else (
        payments[0].id if payments else "USD")
    model = _with(model, options_for=msg.key, purchases=purchases, payments=payments, purchase=chosen,
                  payment=payment)
    return requote(model)


def on_continue(model: Model, msg: PressedOnrampContinue, now: int) -> Step:
    state = model.onramp
    if state.opening:
        return model, []
    if state.provider is None:
        return _with(model, error=CHOOSE_PROVIDER), []
    issue = problem(model)
    account = model.accounts.get(model.networks.active_namespace)
    network = model.networks.active_network
    currency = purchase(model)
    if issue is not None or account.address is None or network is None or currency is None:
        return _with(model, error=issue or NOT_SUPPORTED), []
    call = Call("onramp_url", {
        "network": network.id, "address": account.address,
        "purchase_currency": currency.id, "payment_currency": state.payment, "amount": state.amount.strip(),
    }, OnrampUrlMade, quote_key(model))
    return _with(model, opening=True, error=None), [call]


def on_url(model: Model, msg: OnrampUrlMade, now: int) -> Step:
    if not model.onramp.opening:
        return model, []
    if msg.result is None or not msg.result.url.startswith(("https://", "http://127.0.0.1", "http://localhost")):
        return _with(model, opening=False, error=msg.error or "The provider gave no page to open"), []
    model, eid = model.next_id("e")
    effect = Effect(eid=eid, kind="open_url", req={"url": msg.result.url, "target": "_blank"},
                    reply=OnrampUrlOpened, key=msg.key, timeout_ms=OPEN_TIMEOUT_MS)
    return model, [effect]


def on_opened(model: Model, msg: OnrampUrlOpened, now: int) -> Step:
    if not model.onramp.opening:
        return model, []
    if not msg.ok:
        return _with(model, opening=False, error=msg.error_message or "The provider's page did not open"), []
    model = _with(model, opening=False, polls=POLLS)
    if model.router.view == VIEW:
        model = replace(model, router=router.reset(model.router, "Account"))
    model, shown = snack.show(model, OPENED)
    return model, [*shown, StartTimer(POLL_TIMER, POLL_MS, OnrampPollDue())]


def on_poll(model: Model, msg: OnrampPollDue, now: int) -> Step:
    """While the provider delivers: the balances (and Activity) read again, a while."""
    if model.onramp.polls <= 0:
        return model, []
    model = _with(model, polls=model.onramp.polls - 1)
    model, fetched = balances.fetch(model, now, force=True)
    model, refetched = history.refresh(model, now)
    more: list[Cmd] = [StartTimer(POLL_TIMER, POLL_MS, OnrampPollDue())] if model.onramp.polls > 0 else []
    return model, [*fetched, *refetched, *more]


def observe(before: Model, after: Model, now: int) -> Step:
    """The OnRamp view shown on a network whose options are not known: ask for them. Another
    network or account: a new form."""
    owner = (after.networks.active, after.accounts.get(after.networks.active_namespace).address)
    if owner != (before.networks.active, before.accounts.get(before.networks.active_namespace).address):
        after = replace(after, onramp=OnrampState(polls=after.onramp.polls))
    state = after.onramp
    if after.router.view != VIEW or state.options_for == after.networks.active or after.networks.active is None:
        return after, []
    if state.options_for == f"loading:{after.networks.active}":
        return after, []
    network = after.networks.active_network
    purchase_list: list[dict[str, Any]] = []
    if network is not None:
        reference = network.reference
        purchase_list = [{"id": network.native.symbol, "symbol": network.native.symbol, "name": network.native.name,
                          "decimals": network.native.decimals, "networks": [{"chain_id": reference}]}]
        purchase_list += [{"id": t.symbol, "symbol": t.symbol, "name": t.name, "decimals": t.decimals,
                           "networks": [{"chain_id": reference, "contract_address": t.address}]} for t in network.tokens]
    active = after.networks.active
    after = replace(after, onramp=replace(state, options_for=f"loading:{active}"))
    return after, [Call("onramp_options", {"network": active, "purchase": purchase_list},
                        OnrampOptionsFetched, active)]


HANDLERS: dict[type[Msg], Handler] = {
    PressedOnrampProvider: on_provider,
    SelectedOnrampCurrency: on_currency,
    SelectedOnrampPayment: on_payment,
    ChangedOnrampAmount: on_amount,
    PressedOnrampPreset: on_preset,
    PressedOnrampContinue: on_continue,
    OnrampQuoteDue: on_quote_due,
    OnrampQuoted: on_quoted,
    OnrampOptionsFetched: on_options,
    OnrampUrlMade: on_url,
    OnrampUrlOpened: on_opened,
    OnrampPollDue: on_poll,
}

SLICE = Slice("onramp", HANDLERS, observe)
