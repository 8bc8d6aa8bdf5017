"""OnRamp (Buy): the providers (behaviour.md §1: Coinbase for EVM, Meld for EVM and Solana, fees 1-2 %),
the currency to buy, the payment currency, the amount (presets, within the payment method's
limits), the quote (fees, subtotal, total, what it buys; an estimate says so), and Continue,
which opens the provider's page."""

from __future__ import annotations

from ..rules.format import fiat
from ..slices.model import Model
from ..slices.onramp_input import (
    PRESETS,
    PressedOnrampPreset,
    PressedOnrampProvider,
    SelectedOnrampCurrency,
    SelectedOnrampPayment,
    change_amount,
)
from ..slices.onramp_open import PressedOnrampContinue
from ..slices.onramp_state import current_quote, problem, providers, purchase
from ..wire.nodes import Node, node
from . import parts

TITLE = "Buy"
READS = ("onramp", "networks", "accounts")
ESTIMATE = "Estimate: the provider's quote is unavailable"


def _choice(prefix: str, value: str, text: str, chosen: bool, msg: object, label: str) -> Node:
    return node("button", f"{prefix}/{value}", on={"press": msg}, text=text,
                variant="main" if chosen else "secondary", pressed=chosen, label=label)


def body(model: Model) -> Node:
    state = model.onramp
    children: list[Node] = [node("text", "onramp/providers/label", text="Provider", variant="small", tone="muted")]
    for pid, provider_name, fees in providers(model):
        children.append(node("list-item", f"onramp/provider/{pid}", on={"press": PressedOnrampProvider(pid)},
                             title=provider_name, subtitle=f"Fees {fees}",
                             image=parts.onramp_image(pid, provider_name),
                             trailing="Selected" if state.provider == pid else None))
    if state.options_for is None or state.options_for.startswith("loading:"):
        children.append(node("skeleton", "onramp/options/loading", w=312, h=40))
    else:
        # each row of choices says what it chooses, as "Provider" does above
        children.append(node("text", "onramp/currencies/label", text="You receive", variant="small", tone="muted"))
        children.append(parts.row("onramp/currencies", [
            _choice("onramp/currency", c.id, c.symbol, c.id == state.purchase, SelectedOnrampCurrency(c.id),
                    f"Buy {c.name}") for c in state.purchases], gap=6))
        children.append(node("text", "onramp/payments/label", text="You pay", variant="small", tone="muted"))
        children.append(parts.row("onramp/payments", [
            _choice("onramp/payment", p.id, p.id, p.id == state.payment, SelectedOnrampPayment(p.id),
                    f"Pay in {p.id}") for p in state.payments], gap=6))
    children += [
        node("input", "onramp/amount", on={"change": change_amount}, value=state.amount, placeholder="0",
             kind="amount", label="Amount to pay", unit=state.payment),
        parts.row("onramp/presets", [
            _choice("onramp/preset", value, value, state.amount == value, PressedOnrampPreset(value),
                    f"{value} {state.payment}") for value in PRESETS], gap=6),
    ]
    children += _quote(model)
    issue = problem(model)
    error: str | None = state.error or state.quote_error or (
        issue if state.amount.strip() and state.options_for else None)
    if error:
        children.append(node("text", "onramp/error", text=error, variant="small", tone="error"))
    name: str | None = next((n for pid, n, _ in providers(model) if pid == state.provider), None)
    children.append(node("button", "onramp/continue", on={"press": PressedOnrampContinue()},
                         pending={"press": "spinner"}, text=f"Continue with {name}" if name else "Choose a provider",
                         variant="main", busy=True if state.opening else None,
                         disabled=True if name is None or issue is not None or state.opening else None))
    return parts.column("onramp/body", children, gap=10)


def _quote(model: Model) -> list[Node]:
    state = model.onramp
    quote = current_quote(model)
    currency = purchase(model)
    if state.quoting:
        return [node("skeleton", "onramp/quote/loading", w=312, h=64)]
    if quote is None or currency is None:
        return []
    rows = [
        ("onramp/quote/get", "You get", f"{quote.purchase_amount} {currency.symbol}"),
        ("onramp/quote/fees", "Fees", f"{fiat(quote.fees)} {state.payment}"),
        ("onramp/quote/subtotal", "Subtotal", f"{fiat(quote.subtotal)} {state.payment}"),
        ("onramp/quote/total", "Total", f"{fiat(quote.total)} {state.payment}"),
    ]
    out = [parts.row(id_, [node("text", f"{id_}/label", text=label, variant="small", tone="muted"),
                           node("text", f"{id_}/value", text=value, variant="small")], justify="between")
           for id_, label, value in rows]
    if quote.estimate:
        out.append(node("text", "onramp/quote/estimate", text=ESTIMATE, variant="small", tone="muted"))
    return out
