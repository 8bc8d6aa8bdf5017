"""The visitor's edits of the swap form: the token pickers (picking the other side's token
flips), the amount typed or Max (of the native token, less the fee), flip, and the slippage. Each
edit forgets the quote and asks for the new one."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Literal

from ..core.msg import Msg
from ..services.domain.swap_types import NATIVE
from .send_form import to_units
from .swap_form import INSUFFICIENT_BALANCE, SELECT_TOKEN, current_quote, token, with_swap
from .swap_quote import QUOTE_DEBOUNCE_MS, requote
from ..wire.frames import TextArgs

if TYPE_CHECKING:
    from .model import Model, Step

SLIPPAGES = ("0.5", "1", "2", "3")  # percent; the default is behaviour.md §9's 1
NATIVE_RESERVE_WEI = 10**16  # Max of the native token keeps 0.01 for the fee until a quote says more
FEE_MARGIN = 2  # … then twice the quoted fee


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


def change_amount(args: TextArgs) -> Msg:
    return ChangedSwapAmount(args.value)


def on_picker(model: Model, msg: PressedSwapPicker, now: int) -> Step:
    if msg.side not in ("from", "to"):
        return model, []
    side: Literal["from", "to"] = "from" if msg.side == "from" else "to"
    return with_swap(model, picking=None if model.swap.picking == side else side), []


def on_select(model: Model, msg: SelectedSwapToken, now: int) -> Step:
    chosen = token(model, msg.key)
    if chosen is None or msg.side not in ("from", "to"):
        return model, []
    state = model.swap
    other = state.to_token if msg.side == "from" else state.from_token
    if other is not None and other.lower() == chosen.key.lower():  # picking the other side's: flip
        model = with_swap(model, from_token=state.to_token, to_token=state.from_token)
    elif msg.side == "from":
        model = with_swap(model, from_token=chosen.key)
    else:
        model = with_swap(model, to_token=chosen.key)
    return requote(with_swap(model, picking=None))


def on_amount(model: Model, msg: ChangedSwapAmount, now: int) -> Step:
    return requote(with_swap(model, amount=msg.value.strip()), delay_ms=QUOTE_DEBOUNCE_MS)


def on_max(model: Model, msg: PressedSwapMax, now: int) -> Step:
    source = token(model, model.swap.from_token)
    if source is None or source.balance is None:
        return with_swap(model, error=SELECT_TOKEN if source is None else INSUFFICIENT_BALANCE), []
    balance = to_units(source.balance, source.decimals) or 0
    if source.key == NATIVE:
        quote = model.swap.quote
        fee = int(quote.fee_wei) * FEE_MARGIN if quote is not None and quote.fee_wei else NATIVE_RESERVE_WEI
        balance = max(0, balance - fee)
    amount = format(Decimal(balance).scaleb(-source.decimals).normalize(), "f") if balance else "0"
    return requote(with_swap(model, amount=amount))


def on_flip(model: Model, msg: PressedSwapFlip, now: int) -> Step:
    state = model.swap
    quote = current_quote(model)
    target = token(model, state.to_token)
    amount = state.amount  # the quoted output becomes the amount in, as wallets do
    if quote is not None and target is not None:
        amount = format(Decimal(int(quote.amount_out)).scaleb(-target.decimals).normalize(), "f")
    return requote(with_swap(model, from_token=state.to_token, to_token=state.from_token, amount=amount,
                             picking=None))


def on_slippage(model: Model, msg: SelectedSwapSlippage, now: int) -> Step:
    if msg.value not in SLIPPAGES:
        return model, []
    return requote(with_swap(model, slippage=msg.value))
