"""Sending tokens (SPEC §3 "Send state", §4 "Send", §5, §8): the form, the preview with its
network fee estimate, and the one wallet request a send makes.

The form (token, amount, receiver) is reset when the network switches and after a successful
send. No double sends, ever: a send is one `eth_sendTransaction` request with an id
(`pending`); while it waits no other send starts, and only the answer carrying that id counts.
A request lost with a page reload (or never answered) is shown as lost with a retry button; it
is never re-issued by the engine itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from ..core.evolve import replace
from decimal import Decimal, InvalidOperation, localcontext
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Call, CancelEffect, EffectReply, Reply, Track
from ..core.msg import Msg
from ..core.shape import Handler, Slice
from ..rules.addresses import checksum, is_evm_address, is_solana_wallet_address
from ..rules.format import usd
from ..rules.rpc_errors import classify, readable
from . import router, snack, stack
from .connecting import wallet_request
from ..rules import texts
from ..services.send import erc20_tx, native_tx
from . import balances, history
from .solana_send_replies import SolanaSendPrepared

if TYPE_CHECKING:
    from .model import Model, Step
    from .accounts import TokenBalance

SEND_TIMEOUT_MS = 300_000  # the visitor may take a while in the wallet
FEE_MARGIN = 2  # "max" of the native token keeps twice the estimated fee (wallets check max fee)
SEND_VIEWS = ("WalletSend", "WalletSendPreview")
NATIVE = "native"

AMOUNT_AND_RECEIVER_REQUIRED = texts.AMOUNT_AND_RECEIVER_REQUIRED
TOKEN_REQUIRED = texts.TOKEN_REQUIRED
INVALID_ADDRESS = "Invalid address"
INVALID_AMOUNT = "Invalid amount"
INSUFFICIENT_FUNDS = "Insufficient funds"
UNSUPPORTED_CHAIN = texts.UNSUPPORTED_CHAIN
NO_ACCOUNT = texts.NO_ACTIVE_CAIP_ADDRESS
DECLINED = "Transaction declined in the wallet"
BAD_HASH = "The wallet returned an invalid transaction hash"
LOST_RELOAD = "The wallet request was lost when the page reloaded"
LOST_TIMEOUT = "The wallet did not answer in time"
FEE_UNAVAILABLE = "Network fee unavailable"
TRANSFER_REFUSED = "The token contract would refuse this transfer"
SENT = "Transaction sent"

_TX_HASH = re.compile(r"^0x[0-9a-fA-F]{64}$")
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


@dataclass(frozen=True)
class PressedSendMax(Msg):
    pass


@dataclass(frozen=True)
class PressedSendPreview(Msg):
    pass


@dataclass(frozen=True)
class PressedSend(Msg):
    pass


@dataclass(frozen=True)
class PressedRetrySend(Msg):
    pass


@dataclass(frozen=True)
class PressedDiscardSend(Msg):
    pass


def change_amount(args: Any) -> Msg:
    return ChangedSendAmount(str(getattr(args, "value", "")))


def change_receiver(args: Any) -> Msg:
    return ChangedSendReceiver(str(getattr(args, "value", "")))


# ----- reading the form


def token_key(token: TokenBalance) -> str:
    return token.address or NATIVE


def tokens(model: Model) -> tuple[TokenBalance, ...]:
    return model.accounts.get(model.networks.active_namespace).token_balance


def selected_token(model: Model) -> TokenBalance | None:
    key = model.send.token
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


def _valid_receiver(namespace: str | None, receiver: str) -> bool:
    if namespace == "solana":  # base58 of 32 to 44 characters naming a key on the curve (SPEC §5)
        return is_solana_wallet_address(receiver)
    return namespace == "eip155" and is_evm_address(receiver)


def problem(model: Model) -> str | None:
    """What is wrong with the form, first problem first (SPEC §5 messages), or None."""
    state = model.send
    if not state.amount.strip() or not state.receiver.strip():
        return AMOUNT_AND_RECEIVER_REQUIRED
    token = selected_token(model)
    if state.token is None or token is None:
        return TOKEN_REQUIRED
    if not _valid_receiver(model.networks.active_namespace, state.receiver.strip()):
        return INVALID_ADDRESS
    units = to_units(state.amount, int(token.quantity_decimals))
    if units is None or units <= 0:
        return INVALID_AMOUNT
    balance = to_units(token.quantity_numeric, int(token.quantity_decimals)) or 0
    if units > balance:
        return INSUFFICIENT_FUNDS
    return None


def _form_key(state: SendState) -> str:
    return f"{state.token}|{state.amount.strip()}|{state.receiver.strip().lower()}"


def _with_send(model: Model, **changes: Any) -> Model:
    return replace(model, send=replace(model.send, **changes))


# ----- the form


def on_token_picker(model: Model, msg: PressedSendTokenPicker, now: int) -> Step:
    return _with_send(model, picking=not model.send.picking), []


def on_select_token(model: Model, msg: SelectedSendToken, now: int) -> Step:
    if not any(token_key(t) == msg.key for t in tokens(model)):
        return model, []
    return _with_send(model, token=msg.key, picking=False, error=None, fee=FeeEstimate()), []


def on_amount(model: Model, msg: ChangedSendAmount, now: int) -> Step:
    return _with_send(model, amount=msg.value.strip(), error=None, fee=FeeEstimate()), []


def on_receiver(model: Model, msg: ChangedSendReceiver, now: int) -> Step:
    return _with_send(model, receiver=msg.value.strip(), error=None, fee=FeeEstimate(),
                      receiver_profile_name=None, receiver_profile_image_url=None), []


class Fee(BaseModel):
    """What service `estimate_fee` returns: the fee in wei, its gas and price, and for a token
    whether its contract accepts the transfer (None: not asked)."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    fee: int
    gas: int
    gas_price: int
    transfer_ok: bool | None = None


@dataclass(frozen=True)
class FeeEstimated(Reply):
    """The fee of the form `key` (the form's key) came back."""

    result: Fee | None = None


@dataclass(frozen=True)
class MaxFeeEstimated(Reply):
    """The fee of sending the whole native balance (`key`: the token's key) came back."""

    result: Fee | None = None


def _rpc_url(model: Model) -> str | None:
    network = model.networks.active_network
    return network.rpc_urls[0] if network is not None and network.rpc_urls else None


def on_max(model: Model, msg: PressedSendMax, now: int) -> Step:
    """The whole balance; for the native token, less twice the estimated network fee."""
    token = selected_token(model)
    if token is None:
        return _with_send(model, error=TOKEN_REQUIRED), []
    if token.address is not None:
        return _with_send(model, amount=_plain(token.quantity_numeric), error=None, fee=FeeEstimate()), []
    address = model.accounts.get(model.networks.active_namespace).address
    rpc_url = _rpc_url(model)
    if address is None or rpc_url is None:
        return _with_send(model, error=FEE_UNAVAILABLE), []
    if model.networks.active_namespace == "solana":
        args = {"rpc_url": rpc_url, "sender": address, "receiver": address, "mint": None, "amount": 0,
                "decimals": int(token.quantity_decimals)}
        return model, [Call("solana_estimate_fee", args, MaxFeeEstimated, NATIVE)]
    receiver = model.send.receiver if is_evm_address(model.send.receiver) else address
    tx = native_tx(address, checksum(receiver), 0)
    return model, [Call("estimate_fee", {"rpc_url": rpc_url, "tx": tx}, MaxFeeEstimated, NATIVE)]


def _plain(numeric: str) -> str:
    value = Decimal(numeric)
    return format(value.normalize(), "f") if value else "0"


def on_max_fee(model: Model, msg: MaxFeeEstimated, now: int) -> Step:
    token = selected_token(model)
    if token is None or token_key(token) != msg.key:
        return model, []
    if msg.result is None:
        return _with_send(model, error=_fee_error(msg.error)), []
    decimals = int(token.quantity_decimals)
    balance = to_units(token.quantity_numeric, decimals) or 0
    spendable = max(0, balance - msg.result.fee * FEE_MARGIN)
    amount = format(Decimal(spendable).scaleb(-decimals).normalize(), "f") if spendable else "0"
    return _with_send(model, amount=amount, error=None, fee=FeeEstimate()), []


def _fee_error(error: str) -> str:
    mapped = readable(error)
    return mapped if mapped != error else FEE_UNAVAILABLE


# ----- the preview


def on_preview(model: Model, msg: PressedSendPreview, now: int) -> Step:
    issue = problem(model)
    if issue is not None:
        return _with_send(model, error=issue), []
    native = next((t for t in tokens(model) if t.address is None), None)
    network_usd = str(Decimal(str(native.value)).quantize(Decimal("0.01"))) if native else None
    model = replace(model, router=router.push(model.router, "WalletSendPreview"))
    return estimate(_with_send(model, error=None, picking=False, network_balance_usd=network_usd))


def _build_tx(model: Model) -> tuple[dict[str, str], TokenBalance] | None:
    token = selected_token(model)
    address = model.accounts.get(model.networks.active_namespace).address
    if token is None or address is None:
        return None
    units = to_units(model.send.amount, int(token.quantity_decimals)) or 0
    receiver = checksum(model.send.receiver.strip())
    if token.address is None:
        return native_tx(address, receiver, units), token
    return erc20_tx(address, token.address, receiver, units), token


def estimate(model: Model) -> Step:
    """Ask for the network fee of the transaction the form describes (and, for a token, whether
    its contract accepts the transfer, read with the contract's transfer interface)."""
    key = _form_key(model.send)
    if model.networks.active_namespace == "solana":
        solana = _solana_args(model)
        if solana is None:
            return _with_send(model, fee=FeeEstimate(key=key, error=FEE_UNAVAILABLE)), []
        model = _with_send(model, fee=FeeEstimate(key=key, loading=True))
        return model, [Call("solana_estimate_fee", solana, FeeEstimated, key)]
    built = _build_tx(model)
    rpc_url = _rpc_url(model)
    if built is None or rpc_url is None:
        return _with_send(model, fee=FeeEstimate(key=key, error=FEE_UNAVAILABLE)), []
    tx, token = built
    args: dict[str, object] = {"rpc_url": rpc_url, "tx": tx}
    if token.address is not None:
        args["token"] = token.address
    model = _with_send(model, fee=FeeEstimate(key=key, loading=True))
    return model, [Call("estimate_fee", args, FeeEstimated, key)]


def on_fee(model: Model, msg: FeeEstimated, now: int) -> Step:
    fee = model.send.fee
    key = msg.key
    if fee.key != key or not fee.loading:
        return model, []
    if msg.result is None:
        return _with_send(model, fee=FeeEstimate(key=key, error=_fee_error(msg.error))), []
    result = msg.result
    ok = result.transfer_ok
    return _with_send(model, fee=FeeEstimate(
        key=key, fee_wei=str(result.fee), gas=str(result.gas), gas_price=str(result.gas_price),
        transfer_ok=bool(ok) if ok is not None else None,
        error=TRANSFER_REFUSED if ok is False else None,
    )), []


# ----- sending


def _track_props(model: Model, token: TokenBalance, amount: str) -> dict[str, Any]:
    account = model.accounts.get(model.networks.active_namespace)
    network = model.networks.active_network
    return {
        "isSmartAccount": account.preferred_account_type == "smartAccount",
        "token": token.address or token.symbol,
        "amount": amount,
        "network": network.id if network else "",
    }


def _refuse(model: Model, text: str) -> Step:
    """Refused before anything reached the wallet: loading is off again, the form intact."""
    return _with_send(model, loading=False, error=text), []


def on_send(model: Model, msg: PressedSend, now: int) -> Step:
    pending = model.send.pending
    if pending is not None:
        return model, []  # one wallet request per send; a lost one is retried explicitly
    return start_send(model, now)


def start_send(model: Model, now: int) -> Step:
    """SPEC §4: the chain is chosen by the active namespace; anything else is refused."""
    sender = SENDERS.get(model.networks.active_namespace or "")
    if sender is None:
        return _refuse(model, UNSUPPORTED_CHAIN)
    return sender(model, now)


def _send_evm(model: Model, now: int) -> Step:
    account = model.accounts.get(model.networks.active_namespace)
    if account.address is None or account.connector_id is None:
        return _refuse(model, NO_ACCOUNT)
    issue = problem(model)
    built = _build_tx(model) if issue is None else None
    if built is None:
        return _refuse(model, issue or TOKEN_REQUIRED)
    tx, token = built
    # SPEC §4: a native send's stack entry has no view; a token send's shows Account.
    entry = router.TxEntry(view=None if token.address is None else "Account", go_back=False)
    model, send_id = model.next_id("send")
    model, effect = wallet_request(model, account.connector_id, "eth_sendTransaction", [tx], TransactionAnswered,
                                   send_id, timeout_ms=SEND_TIMEOUT_MS)
    amount = model.send.amount
    pending = PendingSend(send_id, effect.eid, tuple(tx.items()), token_key(token), amount, tx["to"])
    model = replace(model, router=router.push_tx(model.router, entry))
    model = _with_send(model, loading=True, error=None, pending=pending)
    return model, [Track("SEND_INITIATED", _track_props(model, token, amount)), effect]


def _solana_args(model: Model) -> dict[str, object] | None:
    """What the Solana send services need: sender, receiver, mint (None for SOL), base units."""
    token = selected_token(model)
    address = model.accounts.get("solana").address
    rpc_url = _rpc_url(model)
    if token is None or address is None or rpc_url is None:
        return None
    units = to_units(model.send.amount, int(token.quantity_decimals)) or 0
    return {"rpc_url": rpc_url, "sender": address, "receiver": model.send.receiver.strip(),
            "mint": token.address, "amount": units, "decimals": int(token.quantity_decimals)}


def _send_solana(model: Model, now: int) -> Step:
    """The engine prepares the transaction, the wallet signs it, the engine submits it and
    follows its confirmation (slices/solana_send.py handles the steps' replies)."""
    account = model.accounts.get("solana")
    if account.address is None or account.connector_id is None:
        return _refuse(model, NO_ACCOUNT)
    issue = problem(model)
    args = _solana_args(model) if issue is None else None
    token = selected_token(model)
    if args is None or token is None:
        return _refuse(model, issue or TOKEN_REQUIRED)
    # SPEC §4: a Solana send pushes a transaction-stack entry with view Account, goBack false
    entry = router.TxEntry(view="Account", go_back=False)
    model, send_id = model.next_id("send")
    amount = model.send.amount
    pending = PendingSend(send_id, "", (), token_key(token), amount, str(args["receiver"]))
    model = replace(model, router=router.push_tx(model.router, entry))
    model = _with_send(model, loading=True, error=None, pending=pending)
    return model, [Track("SEND_INITIATED", _track_props(model, token, amount)),
                   Call("solana_prepare_send", args, SolanaSendPrepared, send_id)]


SENDERS = {"eip155": _send_evm, "solana": _send_solana}


@dataclass(frozen=True)
class TransactionAnswered(EffectReply):
    """The wallet answered eth_sendTransaction (`key`: the send id)."""


def on_tx_result(model: Model, msg: TransactionAnswered, now: int) -> Step:
    send_id = msg.key
    pending = model.send.pending
    if pending is None or pending.send_id != send_id or pending.status != "waiting":
        return model, []  # an answer to a request this session no longer waits for
    if msg.ok and isinstance(msg.result, str) and _TX_HASH.match(msg.result):
        return _succeeded(model, now, pending)
    if not msg.ok and msg.error_code == -32603 and msg.error_message == "timeout":
        return _lost(model, LOST_TIMEOUT), []
    if msg.ok:
        text = BAD_HASH
    else:
        error = classify(msg.error_code, msg.error_message)
        text = DECLINED if error.user_rejected else error.message
    model = _with_send(model, loading=False, pending=None, error=text)
    return stack.pop_tx(model, cancel=True)  # back to the form, which stays as it was


def _succeeded(model: Model, now: int, pending: PendingSend) -> Step:
    token = selected_token(model)
    props = (_track_props(model, token, pending.amount) if token is not None
             else {"isSmartAccount": False, "token": pending.token, "amount": pending.amount,
                   "network": model.networks.active or ""})
    model = _with_send(model, loading=False, pending=None)
    model, cmds = stack.pop_tx(model)
    if model.router.view in SEND_VIEWS:
        model = replace(model, router=router.reset(model.router, "Account"))
    model, fetch = balances.fetch(reset_send(model), now, force=True)
    model, refetch = history.refresh(model, now)
    model, shown = snack.show(model, SENT)
    return model, [Track("SEND_SUCCESS", props), *cmds, *fetch, *refetch, *shown]


def _lost(model: Model, reason: str) -> Model:
    pending = model.send.pending
    if pending is None:
        return model
    stack = model.router.tx_stack
    model = replace(model, router=replace(model.router, tx_stack=stack[:-1]))
    return _with_send(model, loading=False, pending=replace(pending, status="lost", reason=reason))


def on_reattached(model: Model, msg: Any, now: int) -> Step:
    """A reloaded page lost the wallet request it was running: show it as lost (and drop the
    effect), never ask the wallet again by ourselves. (`msg` is connection.Reattached.)"""
    pending = model.send.pending
    if not msg.reloaded or pending is None or pending.status != "waiting":
        return model, []
    return _lost(model, LOST_RELOAD), [CancelEffect(pending.eid)]


def on_retry(model: Model, msg: PressedRetrySend, now: int) -> Step:
    pending = model.send.pending
    if pending is None or pending.status != "lost":
        return model, []
    return start_send(_with_send(model, pending=None), now)


def on_discard(model: Model, msg: PressedDiscardSend, now: int) -> Step:
    pending = model.send.pending
    if pending is None or pending.status != "lost":
        return model, []
    return _with_send(model, pending=None, loading=False), []


HANDLERS: dict[type[Msg], Handler] = {
    TransactionAnswered: on_tx_result,
    PressedSendTokenPicker: on_token_picker,
    SelectedSendToken: on_select_token,
    ChangedSendAmount: on_amount,
    ChangedSendReceiver: on_receiver,
    PressedSendMax: on_max,
    PressedSendPreview: on_preview,
    PressedSend: on_send,
    PressedRetrySend: on_retry,
    PressedDiscardSend: on_discard,
    FeeEstimated: on_fee,
    MaxFeeEstimated: on_max_fee,
}

SLICE = Slice("send", HANDLERS)
