"""Swap (behaviour.md §2 view "Swap"): the token to pay with and its amount (Max, its fiat value), flip,
the token to receive with the live quote, the quote's details (price impact, minimum received
after slippage, network fee, slippage setting), and Review swap. What keeps the swap from going
on (insufficient balance, insufficient liquidity, an unsupported network) is stated here, before
any wallet request."""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal

from ..rules.format import floor3, network_fee, usd
from ..services.domain.swap_types import NOT_SUPPORTED_SWAPS
from ..slices.model import Model
from ..slices.smart_account import SPONSORED_FEE, fee_sponsored
from ..slices.swap_form import (
    INSUFFICIENT_BALANCE,
    INVALID_AMOUNT,
    SELECT_TOKEN,
    SwapToken,
    current_quote,
    problem,
    supported,
    token,
    tokens,
)
from ..slices.swap_input import (
    SLIPPAGES,
    PressedSwapFlip,
    PressedSwapMax,
    PressedSwapPicker,
    SelectedSwapSlippage,
    SelectedSwapToken,
    change_amount,
)
from ..slices.swap_tx import PressedSwapReview
from ..wire.nodes import Node, node
from . import parts

TITLE = "Swap"
READS = ("swap", "accounts", "networks", "balances")


def token_icon(t: SwapToken) -> str:
    return parts.token_image(t.symbol, t.icon_url, t.key if t.key != "native" else f"native:{t.symbol}")


def units_text(raw: str | int, decimals: int, places: str = "0.000001") -> str:
    """A raw amount for reading: up to 6 decimals, floored, grouped ('975.114009')."""
    value = Decimal(int(raw)).scaleb(-decimals)
    shown = value.quantize(Decimal(places), rounding=ROUND_DOWN)
    return f"{shown.normalize():,f}" if shown else "0"


def fee_text(model: Model, fee_wei: str | None) -> str | None:
    if fee_sponsored(model):
        return SPONSORED_FEE
    network = model.networks.active_network
    if fee_wei is None or network is None:
        return None
    amount = Decimal(int(fee_wei)).scaleb(-network.native.decimals)
    return network_fee(amount, network.native_price, network.native.symbol)


def _fiat(t: SwapToken | None, amount: Decimal | None) -> str | None:
    if t is None or not t.price or amount is None:
        return None
    return usd(amount * Decimal(str(t.price)))


def _picker_row(model: Model, side: str, key: str | None) -> Node:
    chosen = token(model, key)
    on = {"press": PressedSwapPicker(side)}
    if chosen is None:
        label = "Select a token to pay with" if side == "from" else "Select a token to receive"
        return node("list-item", f"swap/{side}/token", on=on, title=SELECT_TOKEN, icon="wallet", chevron=True,
                    label=label)
    balance = f"Balance: {floor3(chosen.balance)} {chosen.symbol}" if chosen.balance is not None else None
    symbol = chosen.symbol
    label = f"Pay with {symbol}, change token" if side == "from" else f"Receive {symbol}, change token"
    return node("list-item", f"swap/{side}/token", on=on, title=chosen.symbol, subtitle=balance,
                image=token_icon(chosen), chevron=True, label=label)


def _token_list(model: Model, side: str) -> Node:
    """Your tokens (those held), then the network's tokens (its suggested / popular list)."""
    held: list[Node] = []
    popular: list[Node] = []
    for t in tokens(model):
        row = node("list-item", f"swap/pick/{side}/{t.key}", on={"press": SelectedSwapToken(side, t.key)},
                   title=t.symbol, subtitle=t.name, image=token_icon(t),
                   trailing=floor3(t.balance) if t.balance is not None else None)
        (held if t.balance is not None and Decimal(t.balance) > 0 else popular).append(row)
    groups = []
    if held:
        groups.append(node("group", f"swap/pick/{side}/held", held, title="Your tokens"))
    if popular:
        groups.append(node("group", f"swap/pick/{side}/popular", popular, title="Popular tokens"))
    return parts.column(f"swap/pick/{side}", groups)


def _to_amount(model: Model) -> Node:
    state = model.swap
    target = token(model, state.to_token)
    quote = current_quote(model)
    if state.quoting:
        return node("skeleton", "swap/to/amount", w=120, h=24)
    text = units_text(quote.amount_out, target.decimals) if quote is not None and target is not None else "0"
    return node("text", "swap/to/amount", text=text, variant="amount", tone=None if quote else "muted")


def details(model: Model, prefix: str) -> list[Node]:
    """The quote's details: rate, price impact, minimum received, network fee."""
    state = model.swap
    quote = current_quote(model)
    source, target = token(model, state.from_token), token(model, state.to_token)
    if quote is None or source is None or target is None:
        return []
    amount_in = Decimal(state.amount.replace(",", "."))
    out = Decimal(int(quote.amount_out)).scaleb(-target.decimals)
    rate = (out / amount_in) if amount_in else Decimal(0)
    rows = [
        (f"{prefix}/rate", "Rate", f"1 {source.symbol} = {units_text(int(rate.scaleb(target.decimals)), target.decimals)} "
                                   f"{target.symbol}"),
        (f"{prefix}/impact", "Price impact", f"{quote.price_impact}%" if quote.price_impact is not None else "—"),
        (f"{prefix}/min", f"Minimum received ({state.slippage}% slippage)",
         f"{units_text(quote.min_out, target.decimals)} {target.symbol}"),
        (f"{prefix}/fee", "Network fee", fee_text(model, quote.fee_wei) or "—"),
    ]
    return [parts.row(id_, [
        node("text", f"{id_}/label", text=label, variant="small", tone="muted"),
        node("text", f"{id_}/value", text=value, variant="small"),
    ], justify="between") for id_, label, value in rows]


def _slippage(model: Model) -> Node:
    buttons = [node("button", f"swap/slippage/{value}", on={"press": SelectedSwapSlippage(value)},
                    text=f"{value}%", variant="main" if model.swap.slippage == value else "secondary",
                    pressed=model.swap.slippage == value,
                    label=f"Slippage {value}%")
               for value in SLIPPAGES]
    return parts.column("swap/slippage", [
        node("text", "swap/slippage/label", text="Slippage tolerance", variant="small", tone="muted"),
        parts.row("swap/slippage/options", buttons, gap=6),
    ], gap=4)


def review_label(model: Model) -> tuple[str, bool]:
    """The main button's words and whether it can be pressed."""
    issue = problem(model)
    if issue is not None:
        return issue, False
    if model.swap.quote_error:
        return model.swap.quote_error, False
    if current_quote(model) is None:
        return "Getting quote…", False
    return "Review swap", True


def body(model: Model) -> Node:
    state = model.swap
    issue = problem(model)
    if not supported(model):
        return parts.column("swap/body", [node("alert", "swap/unsupported", title="Swap",
                                               message=NOT_SUPPORTED_SWAPS, variant="warning")])
    source = token(model, state.from_token)
    target = token(model, state.to_token)
    try:
        typed = Decimal(state.amount.replace(",", ".")) if state.amount else None
    except ArithmeticError:
        typed = None
    quote = current_quote(model)
    out = Decimal(int(quote.amount_out)).scaleb(-target.decimals) if quote and target else None
    children: list[Node] = [
        _picker_row(model, "from", state.from_token),
    ]
    if state.picking == "from":
        children.append(_token_list(model, "from"))
    children += [
        parts.row("swap/amount-row", [
            node("input", "swap/amount", on={"change": change_amount}, value=state.amount, placeholder="0",
                 kind="amount", label="Amount to swap", unit=source.symbol if source else None,
                 invalid=True if issue in (INVALID_AMOUNT, INSUFFICIENT_BALANCE) else None),
            node("button", "swap/max", on={"press": PressedSwapMax()}, text="Max", variant="accent",
                 label="Max, swap the whole balance"),
        ]),
        node("text", "swap/from/fiat", text=_fiat(source, typed) or "", variant="small", tone="muted",
             hidden=None if _fiat(source, typed) else True),
        parts.row("swap/flip-row", [
            node("button", "swap/flip", on={"press": PressedSwapFlip()}, text="", icon="swap", variant="ghost",
                 label="Flip the tokens"),
        ], justify="center"),
        _picker_row(model, "to", state.to_token),
    ]
    if state.picking == "to":
        children.append(_token_list(model, "to"))
    children += [
        _to_amount(model),
        node("text", "swap/to/fiat", text=_fiat(target, out) or "", variant="small", tone="muted",
             hidden=None if _fiat(target, out) else True),
        *details(model, "swap/details"),
        _slippage(model),
    ]
    error = state.error or state.quote_error
    if error:
        children.append(node("text", "swap/error", text=error, variant="small", tone="error"))
        children += parts.support_code(model, "swap", "swap")
    label, ready = review_label(model)
    children.append(node("button", "swap/review", on={"press": PressedSwapReview()}, text=label, variant="main",
                         disabled=None if ready else True))
    return parts.column("swap/body", children, gap=10)
