"""The visitor's edits of the Buy form: the provider (one serving the active namespace), the
currency to buy and to pay with (among the options known), the amount typed or a preset. Each
edit that changes what a quote is for asks for a new one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.msg import Msg
from .onramp_quote import QUOTE_DEBOUNCE_MS, requote
from .onramp_state import providers, with_onramp
from ..wire.frames import TextArgs

if TYPE_CHECKING:
    from .model import Model, Step

PRESETS = ("50", "100", "250", "500")


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


def change_amount(args: TextArgs) -> Msg:
    return ChangedOnrampAmount(args.value)


def on_provider(model: Model, msg: PressedOnrampProvider, now: int) -> Step:
    if msg.provider not in {pid for pid, _, _ in providers(model)}:
        return model, []
    return with_onramp(model, provider=msg.provider, error=None), []


def on_currency(model: Model, msg: SelectedOnrampCurrency, now: int) -> Step:
    if not any(c.id == msg.currency for c in model.onramp.purchases):
        return model, []
    return requote(with_onramp(model, purchase=msg.currency))


def on_payment(model: Model, msg: SelectedOnrampPayment, now: int) -> Step:
    if not any(p.id == msg.currency for p in model.onramp.payments):
        return model, []
    return requote(with_onramp(model, payment=msg.currency))


def on_amount(model: Model, msg: ChangedOnrampAmount, now: int) -> Step:
    return requote(with_onramp(model, amount=msg.value.strip()), delay_ms=QUOTE_DEBOUNCE_MS)


def on_preset(model: Model, msg: PressedOnrampPreset, now: int) -> Step:
    if msg.value not in PRESETS:
        return model, []
    return requote(with_onramp(model, amount=msg.value))
