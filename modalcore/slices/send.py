"""Sending tokens (behaviour.md §3 "Send state", §4 "Send", §5, §8): the form, the preview with its
network fee estimate, and the one wallet request a send makes.

The form (token, amount, receiver) is reset when the network switches and after a successful
send. No double sends, ever: a send is one `eth_sendTransaction` request with an id
(`pending`); while it waits no other send starts, and only the answer carrying that id counts.
A request lost with a page reload (or never answered) is shown as lost with a retry button; it
is never re-issued by the engine itself.

The slice is assembled here from its parts: the form (`send_form`), the preview with its fee
(`send_fee`), the wallet request (`send_tx`) and a receiver typed as a name (`send_name`).
"""

from __future__ import annotations

from ..core.shape import On, Slice
from .send_fee import (
    FeeEstimated,
    MaxFeeEstimated,
    PressedSendMax,
    PressedSendPreview,
    on_fee,
    on_max,
    on_max_fee,
    on_preview,
)
from .send_form import (
    ChangedSendAmount,
    ChangedSendReceiver,
    PressedSendTokenPicker,
    SelectedSendToken,
    on_amount,
    on_select_token,
    on_token_picker,
    observe,
)
from .send_name import ReceiverNameDebounced, ReceiverNameResolved, on_debounced, on_receiver, on_resolved
from .send_tx import (
    PressedDiscardSend,
    PressedRetrySend,
    PressedSend,
    TransactionAnswered,
    on_discard,
    on_retry,
    on_send,
    on_tx_result,
)

HANDLERS = (
    On(TransactionAnswered, on_tx_result),
    On(PressedSendTokenPicker, on_token_picker),
    On(SelectedSendToken, on_select_token),
    On(ChangedSendAmount, on_amount),
    On(ChangedSendReceiver, on_receiver),
    On(PressedSendMax, on_max),
    On(PressedSendPreview, on_preview),
    On(PressedSend, on_send),
    On(PressedRetrySend, on_retry),
    On(PressedDiscardSend, on_discard),
    On(FeeEstimated, on_fee),
    On(MaxFeeEstimated, on_max_fee),
    On(ReceiverNameDebounced, on_debounced),
    On(ReceiverNameResolved, on_resolved),
)

SLICE = Slice("send", HANDLERS, observe)
