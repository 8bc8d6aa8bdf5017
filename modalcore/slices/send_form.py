"""The send form (behaviour.md §3 "Send state", §5): its state, the messages that edit it, and the
rules that read it (the selected token, the amount in units, what is wrong with the form).

The form (token, amount, receiver) is reset when the network switches, when the account it was
made for goes (a disconnect, another account or namespace: a draft belongs to its owner) and
after a successful send; a wallet request still waiting stays known through a reset, so it is
never sent twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation, localcontext
from typing import TYPE_CHECKING, Literal

from ..core.evolve import replace
from ..core.msg import Msg
from ..rules import texts
from ..rules.addresses import is_evm_address, is_solana_wallet_address
from ..rules.format import usd
from ..rules.names import ERROR_RESOLVING, NAME_NAMESPACES, looks_like_name, no_address_for
from ..wire.frames import TextArgs

if TYPE_CHECKING:
    from .accounts import TokenBalance
    from .model import Model, Step

NATIVE = "native"

AMOUNT_AND_RECEIVER_REQUIRED = texts.AMOUNT_AND_RECEIVER_REQUIRED
TOKEN_REQUIRED = texts.TOKEN_REQUIRED
INVALID_ADDRESS = "Invalid address"
INVALID_AMOUNT = "Invalid amount"
INSUFFICIENT_FUNDS = "Insufficient funds"
RESOLVING_NAME = "Resolving name"

_AMOUNT = re.compile(r"^(\d+(\.\d*)?|\.\d+)$")


@dataclass(frozen=True)
class FeeEstimate:
    key: str = ""  # the form the estimate is for (token, amount, receiver)
    loading: bool = False
    fee_wei: str | None = None
    gas: str | None = None
    gas_price: str | None = None
    error: str | None = None
    transfer_ok: bool | None = None


@dataclass(frozen=True)
class PendingSend:
    """The one wallet request of a send: waiting for its answer, or lost."""

    send_id: str
    eid: str
    tx: tuple[tuple[str, str], ...]
    token: str
    amount: str
    receiver: str
    status: Literal["waiting", "lost"] = "waiting"
    reason: str = ""


@dataclass(frozen=True)
class SendState:
    token: str | None = None  # token address, or "native"
    amount: str = ""
    receiver: str = ""
    receiver_profile_name: str | None = None
    receiver_profile_image_url: str | None = None
    receiver_address: str | None = None  # what a receiver typed as a name resolved to (send_name)
    resolving: bool = False  # the receiver is a name being resolved
    lookup_failed: bool = False  # its lookup failed (the name may have an address: not known)
    network_balance_usd: str | None = None
    loading: bool = False
    last_retry: int | None = None
    picking: bool = False  # the token list is open
    error: str | None = None
    fee: FeeEstimate = field(default_factory=FeeEstimate)
    pending: PendingSend | None = None


def reset_send(model: Model) -> Model:
    """An empty form. A wallet request still waiting stays known, so it is never sent twice."""
    pending = model.send.pending
    waiting = pending is not None and pending.status == "waiting"
    return replace(model, send=SendState(pending=pending, loading=waiting))


def observe(before: Model, after: Model, now: int) -> Step:
    """A draft belongs to the account and network it was made for: a new owner (disconnected,
    another account, namespace or network) starts an empty form."""
    if not before.owns_drafts_of(after) and after.send != reset_send(after).send:
        return reset_send(after), []
    return after, []


# ----- messages


@dataclass(frozen=True)
class PressedSendTokenPicker(Msg):
    pass


@dataclass(frozen=True)
class SelectedSendToken(Msg):
    key: str


@dataclass(frozen=True)
class ChangedSendAmount(Msg):
    value: str


@dataclass(frozen=True)
class ChangedSendReceiver(Msg):
    value: str



def change_amount(args: TextArgs) -> Msg:
    return ChangedSendAmount(args.value)


def change_receiver(args: TextArgs) -> Msg:
    return ChangedSendReceiver(args.value)


# ----- reading the form


def token_key(token: TokenBalance) -> str:
    return token.address or NATIVE


def tokens(model: Model) -> tuple[TokenBalance, ...]:
    return model.accounts.get(model.networks.active_namespace).token_balance


def selected_token(model: Model) -> TokenBalance | None:
    """The token picked, else the network's native token (AppKit's Send opens on it; issue 39
    item 9), else None."""
    key = model.send.token or NATIVE
    return next((t for t in tokens(model) if token_key(t) == key), None)


def to_units(amount: str, decimals: int) -> int | None:
    """The amount in the token's smallest unit; None unless it is a plain decimal number that
    the token's decimals can hold exactly."""
    text = amount.strip().replace(",", ".")
    if not _AMOUNT.match(text):
        return None
    with localcontext() as ctx:
        ctx.prec = 200
        value = Decimal(text).scaleb(decimals)
        if value != value.to_integral_value():
            return None
        return int(value)


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text.strip().replace(",", "."))
    except InvalidOperation:
        return None


def fiat_value(model: Model) -> str | None:
    token = selected_token(model)
    amount = _decimal(model.send.amount) if model.send.amount else None
    if token is None or not token.price or amount is None or not amount.is_finite():
        return None
    return usd(amount * Decimal(str(token.price)))


def receiver_address(state: SendState) -> str | None:
    """Where the send goes: the receiver typed as an address, or the address its name resolved
    to (slices/send_name.py); None while neither."""
    typed = state.receiver.strip()
    if is_evm_address(typed):
        return typed
    return state.receiver_address


def problem(model: Model) -> str | None:
    """What is wrong with the form, first problem first (behaviour.md §5 messages), or None."""
    state = model.send
    if not state.amount.strip() or not state.receiver.strip():
        return AMOUNT_AND_RECEIVER_REQUIRED
    token = selected_token(model)
    if token is None:
        return TOKEN_REQUIRED
    if state.resolving:
        return RESOLVING_NAME
    if model.networks.active_namespace == "solana":
        # base58 of 32 to 44 characters naming a key on the curve (behaviour.md §5)
        if not is_solana_wallet_address(state.receiver.strip()):
            return INVALID_ADDRESS
    elif receiver_address(state) is None or model.networks.active_namespace != "eip155":
        typed = state.receiver.strip()
        if looks_like_name(typed) and model.networks.active_namespace in NAME_NAMESPACES:
            return ERROR_RESOLVING if state.lookup_failed else no_address_for(typed.lower())
        return INVALID_ADDRESS
    units = to_units(state.amount, int(token.quantity_decimals))
    if units is None or units <= 0:
        return INVALID_AMOUNT
    balance = to_units(token.quantity_numeric, int(token.quantity_decimals)) or 0
    if units > balance:
        return INSUFFICIENT_FUNDS
    return None


def form_key(state: SendState) -> str:
    to = (receiver_address(state) or state.receiver.strip()).lower()
    return f"{state.token}|{state.amount.strip()}|{to}"


def with_send(model: Model, **changes: object) -> Model:
    return replace(model, send=replace(model.send, **changes))


# ----- the form


def on_token_picker(model: Model, msg: PressedSendTokenPicker, now: int) -> Step:
    return with_send(model, picking=not model.send.picking), []


def on_select_token(model: Model, msg: SelectedSendToken, now: int) -> Step:
    if not any(token_key(t) == msg.key for t in tokens(model)):
        return model, []
    return with_send(model, token=msg.key, picking=False, error=None, fee=FeeEstimate()), []


def on_amount(model: Model, msg: ChangedSendAmount, now: int) -> Step:
    return with_send(model, amount=msg.value.strip(), error=None, fee=FeeEstimate()), []


def on_receiver(model: Model, msg: ChangedSendReceiver, now: int) -> Step:
    return with_send(model, receiver=msg.value.strip(), error=None, fee=FeeEstimate(),
                      receiver_profile_name=None, receiver_profile_image_url=None), []
