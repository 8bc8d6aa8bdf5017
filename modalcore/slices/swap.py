"""The swap form (behaviour.md §1 swaps, §9 "Swap slippage default 1"): from/to tokens with the
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

The slice is assembled here from its parts: the form's state (`swap_form`), the visitor's edits
(`swap_input`), the quote (`swap_quote`), the token list and a new form for a new owner
(`swap_listing`), and the wallet requests (`swap_tx`).
"""

from __future__ import annotations

from ..core.shape import On, Slice
from .swap_input import (
    ChangedSwapAmount,
    PressedSwapFlip,
    PressedSwapMax,
    PressedSwapPicker,
    SelectedSwapSlippage,
    SelectedSwapToken,
    on_amount,
    on_flip,
    on_max,
    on_picker,
    on_select,
    on_slippage,
)
from .swap_listing import SwapTokensFetched, observe, on_tokens
from .swap_quote import SwapQuoted, SwapQuoteDue, on_quote_due, on_quoted
from .swap_tx import (
    PressedDiscardSwap,
    PressedRetrySwap,
    PressedSwapConfirm,
    PressedSwapReview,
    SwapApprovalMined,
    SwapApproveAnswered,
    SwapTxAnswered,
    on_approval_mined,
    on_approve_answered,
    on_confirm,
    on_discard,
    on_retry,
    on_review,
    on_swap_answered,
)

HANDLERS = (
    On(PressedSwapPicker, on_picker),
    On(SelectedSwapToken, on_select),
    On(ChangedSwapAmount, on_amount),
    On(PressedSwapMax, on_max),
    On(PressedSwapFlip, on_flip),
    On(SelectedSwapSlippage, on_slippage),
    On(SwapQuoteDue, on_quote_due),
    On(SwapQuoted, on_quoted),
    On(SwapTokensFetched, on_tokens),
    On(PressedSwapReview, on_review),
    On(PressedSwapConfirm, on_confirm),
    On(PressedRetrySwap, on_retry),
    On(PressedDiscardSwap, on_discard),
    On(SwapApproveAnswered, on_approve_answered),
    On(SwapApprovalMined, on_approval_mined),
    On(SwapTxAnswered, on_swap_answered),
)

SLICE = Slice("swap", HANDLERS, observe)
