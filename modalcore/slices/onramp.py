"""Buy crypto with fiat (behaviour.md §1 onramp providers Coinbase (EVM only) and Meld (EVM and Solana),
fee range 1-2 %; §3 purchase and payment currencies, quote; §8 fallbacks; §9 default limits).

Opening the OnRamp view asks for the options of the active network (`onramp_options`: the
provider's currencies, else the built-in defaults); the amount (a preset or typed, debounced as
the swap's) gets a quote (`onramp_quote`: fees, subtotal, total, what it buys; an estimate is
marked as one); Continue asks for the provider URL (`onramp_url`) and opens it through the
`open_url` effect, returns to Account and refreshes the balances for a while, so the bought
token shows when the provider delivers it.

The slice is assembled here from its parts: the form's state (`onramp_state`), the visitor's
edits (`onramp_input`), the options (`onramp_options`), the quote (`onramp_quote`) and Continue
with what follows it (`onramp_open`).
"""

from __future__ import annotations

from ..core.shape import On, Slice
from .onramp_input import (
    ChangedOnrampAmount,
    PressedOnrampPreset,
    PressedOnrampProvider,
    SelectedOnrampCurrency,
    SelectedOnrampPayment,
    on_amount,
    on_currency,
    on_payment,
    on_preset,
    on_provider,
)
from .onramp_open import (
    OnrampPollDue,
    OnrampUrlMade,
    OnrampUrlOpened,
    PressedOnrampContinue,
    on_continue,
    on_opened,
    on_poll,
    on_url,
)
from .onramp_options import OnrampOptionsFetched, observe, on_options
from .onramp_quote import OnrampQuoted, OnrampQuoteDue, on_quote_due, on_quoted

HANDLERS = (
    On(PressedOnrampProvider, on_provider),
    On(SelectedOnrampCurrency, on_currency),
    On(SelectedOnrampPayment, on_payment),
    On(ChangedOnrampAmount, on_amount),
    On(PressedOnrampPreset, on_preset),
    On(PressedOnrampContinue, on_continue),
    On(OnrampQuoteDue, on_quote_due),
    On(OnrampQuoted, on_quoted),
    On(OnrampOptionsFetched, on_options),
    On(OnrampUrlMade, on_url),
    On(OnrampUrlOpened, on_opened),
    On(OnrampPollDue, on_poll),
)

SLICE = Slice("onramp", HANDLERS, observe)
