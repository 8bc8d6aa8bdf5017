"""Sending (behaviour.md §4 "Send", §8): the one wallet request a send makes, its answer, and a request
lost with a page reload or a time-out.

No double sends, ever: a send is one `eth_sendTransaction` request with an id (`pending`); while
it waits no other send starts, and only the answer carrying that id counts. A request lost with a
page reload (or never answered) is shown as lost with a retry button; it is never re-issued by
the engine itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.cmds import CancelEffect, EffectReply, Track
from ..core.evolve import replace
from ..core.msg import Msg
from ..rules import texts
from ..rules.rpc_errors import classify
from . import balances, history, router, snack, stack
from .connecting import held_by_engine, wallet_request
from .send_fee import build_tx, solana_args
from .solana_send_replies import SolanaSendPrepared
from .send_form import TOKEN_REQUIRED, PendingSend, problem, reset_send, selected_token, token_key, with_send
from ..services.domain.handles import SOLANA_PREPARE_SEND

if TYPE_CHECKING:
    from .accounts import TokenBalance
    from .model import Model, Step

SEND_TIMEOUT_MS = 300_000  # the visitor may take a while in the wallet
SEND_VIEWS = ("WalletSend", "WalletSendPreview")

UNSUPPORTED_CHAIN = texts.UNSUPPORTED_CHAIN
NO_ACCOUNT = texts.NO_ACTIVE_CAIP_ADDRESS
DECLINED = "Transaction declined in the wallet"
BAD_HASH = "The wallet returned an invalid transaction hash"
LOST_RELOAD = "The wallet request was lost when the page reloaded"
LOST_TIMEOUT = "The wallet did not answer in time"
SENT = "Transaction sent"

_TX_HASH = re.compile(r"^0x[0-9a-fA-F]{64}$")


def timed_out(msg: EffectReply) -> bool:
    """The wallet request went unanswered until its timeout (the engine's timer, or the page's
    own wait, decoded at the edge): lost, not refused."""
    return msg.failure is not None and msg.failure.kind == "timeout"


def refusal(msg: EffectReply) -> str:
    """What a wallet's error answer reads as: declined by the visitor, or the error's message."""
    error = classify(msg.error_code, msg.error_message)
    return DECLINED if error.user_rejected else error.message


def answer_error(msg: EffectReply) -> str | None:
    """None when the wallet answered eth_sendTransaction with a transaction hash; else the reason."""
    if msg.ok and isinstance(msg.result, str) and _TX_HASH.match(msg.result):
        return None
    return BAD_HASH if msg.ok else refusal(msg)


@dataclass(frozen=True)
class PressedSend(Msg):
    pass


@dataclass(frozen=True)
class PressedRetrySend(Msg):
    pass


@dataclass(frozen=True)
class PressedDiscardSend(Msg):
    pass



def _track_props(model: Model, token: TokenBalance, amount: str) -> dict[str, object]:
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
    return with_send(model, loading=False, error=text), []


def on_send(model: Model, msg: PressedSend, now: int) -> Step:
    pending = model.send.pending
    if pending is not None:
        return model, []  # one wallet request per send; a lost one is retried explicitly
    return start_send(model, now)


def start_send(model: Model, now: int) -> Step:
    """behaviour.md §4: the chain is chosen by the active namespace; anything else is refused."""
    sender = SENDERS.get(model.networks.active_namespace or "")
    if sender is None:
        return _refuse(model, UNSUPPORTED_CHAIN)
    return sender(model, now)


def _send_evm(model: Model, now: int) -> Step:
    account = model.accounts.get(model.networks.active_namespace)
    if account.address is None or account.connector_id is None:
        return _refuse(model, NO_ACCOUNT)
    issue = problem(model)
    built = build_tx(model) if issue is None else None
    if built is None:
        return _refuse(model, issue or TOKEN_REQUIRED)
    tx, token = built
    # behaviour.md §4: a native send's stack entry has no view; a token send's shows Account.
    entry = router.TxEntry(view=None if token.address is None else "Account", go_back=False)
    model, send_id = model.next_id("send")
    model, effect = wallet_request(model, account.connector_id, "eth_sendTransaction", [tx], TransactionAnswered,
                                   send_id, timeout_ms=SEND_TIMEOUT_MS)
    amount = model.send.amount
    pending = PendingSend(send_id, effect.eid, tuple(tx.items()), token_key(token), amount, tx["to"])
    model = replace(model, router=router.push_tx(model.router, entry))
    model = with_send(model, loading=True, error=None, pending=pending)
    return model, [Track("SEND_INITIATED", _track_props(model, token, amount)), effect]


def _send_solana(model: Model, now: int) -> Step:
    """The engine prepares the transaction, the wallet signs it, the engine submits it and
    follows its confirmation (slices/solana_send.py handles the steps' replies)."""
    account = model.accounts.get("solana")
    if account.address is None or account.connector_id is None:
        return _refuse(model, NO_ACCOUNT)
    issue = problem(model)
    args = solana_args(model) if issue is None else None
    token = selected_token(model)
    if args is None or token is None:
        return _refuse(model, issue or TOKEN_REQUIRED)
    # behaviour.md §4: a Solana send pushes a transaction-stack entry with view Account, goBack false
    entry = router.TxEntry(view="Account", go_back=False)
    model, send_id = model.next_id("send")
    amount = model.send.amount
    pending = PendingSend(send_id, "", (), token_key(token), amount, str(args["receiver"]))
    model = replace(model, router=router.push_tx(model.router, entry))
    model = with_send(model, loading=True, error=None, pending=pending)
    return model, [Track("SEND_INITIATED", _track_props(model, token, amount)),
                   SOLANA_PREPARE_SEND.call_or_refusal(args, SolanaSendPrepared, send_id)]


SENDERS = {"eip155": _send_evm, "solana": _send_solana}


@dataclass(frozen=True)
class TransactionAnswered(EffectReply):
    """The wallet answered eth_sendTransaction (`key`: the send id)."""


def on_tx_result(model: Model, msg: TransactionAnswered, now: int) -> Step:
    send_id = msg.key
    pending = model.send.pending
    if pending is None or pending.send_id != send_id or pending.status != "waiting":
        return model, []  # an answer to a request this session no longer waits for
    if timed_out(msg):
        return send_lost(model, LOST_TIMEOUT), []
    text = answer_error(msg)
    if text is None:
        return send_succeeded(model, now, pending)
    model = with_send(model, loading=False, pending=None, error=text)
    return stack.pop_tx(model, cancel=True)  # back to the form, which stays as it was


def send_succeeded(model: Model, now: int, pending: PendingSend) -> Step:
    """A send went through (either namespace): the stack entry pops, the form resets, balances
    and history refresh."""
    token = selected_token(model)
    props = (_track_props(model, token, pending.amount) if token is not None
             else {"isSmartAccount": False, "token": pending.token, "amount": pending.amount,
                   "network": model.networks.active or ""})
    model = with_send(model, loading=False, pending=None)
    model, cmds = stack.pop_tx(model)
    if model.router.view in SEND_VIEWS:
        model = replace(model, router=router.reset(model.router, "Account"))
    model, fetch = balances.fetch(reset_send(model), now, force=True)
    model, refetch = history.refresh(model, now)
    model, shown = snack.show(model, SENT)
    return model, [Track("SEND_SUCCESS", props), *cmds, *fetch, *refetch, *shown]


def send_lost(model: Model, reason: str) -> Model:
    """The wallet request of a waiting send is gone (timed out, page reloaded): keep it as lost,
    never ask the wallet again by ourselves."""
    pending = model.send.pending
    if pending is None:
        return model
    stack = model.router.tx_stack
    model = replace(model, router=replace(model.router, tx_stack=stack[:-1]))
    return with_send(model, loading=False, pending=replace(pending, status="lost", reason=reason))


def on_reattached(model: Model, msg: Any, now: int) -> Step:
    """A reloaded page lost the wallet request it was running: show it as lost (and drop the
    effect), never ask the wallet again by ourselves. (`msg` is connection.Reattached.)"""
    pending = model.send.pending
    if not msg.reloaded or pending is None or pending.status != "waiting":
        return model, []
    connector = model.connectors.get(model.accounts.get("eip155").connector_id)
    if connector is not None and connector.type == "WALLET_CONNECT":
        return model, []  # the request runs in the engine's WalletConnect session: not lost
    if held_by_engine(model, pending.eid):  # the embedded wallet holds it (issue 38): not lost
        return model, []
    return send_lost(model, LOST_RELOAD), [CancelEffect(pending.eid)]


def on_retry(model: Model, msg: PressedRetrySend, now: int) -> Step:
    pending = model.send.pending
    if pending is None or pending.status != "lost":
        return model, []
    return start_send(with_send(model, pending=None), now)


def on_discard(model: Model, msg: PressedDiscardSend, now: int) -> Step:
    pending = model.send.pending
    if pending is None or pending.status != "lost":
        return model, []
    return with_send(model, pending=None, loading=False), []
