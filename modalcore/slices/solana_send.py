"""The steps of a Solana send after slices/send.py started it (behaviour.md §4 Send, solana): the
prepared transaction goes to the wallet (`solana:signTransaction`), the signed one to the
engine's submit service, which follows it to confirmation. Success is the same as for eip155
(the stack entry pops, the form resets, balances refresh); any failure leaves the form as it was
with the reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..chains.catalog import wallet_standard_chain
from ..core.evolve import replace
from ..core.shape import On, Slice
from ..rules import limits as L
from ..rules.rpc_errors import readable
from . import stack
from .connecting import solana_request
from .send_form import with_send
from .send_tx import LOST_TIMEOUT, SEND_TIMEOUT_MS, refusal, send_lost, send_succeeded, timed_out
from .solana_send_replies import SolanaSendPrepared, SolanaSendSubmitted, SolanaTransactionSigned
from ..services.domain.handles import SOLANA_SUBMIT_SEND

if TYPE_CHECKING:
    from .model import Model, Step

TX_FAILED = "The transaction failed on the network"
BAD_SIGNED = "The wallet returned no signed transaction"


def _waiting(model: Model, send_id: str) -> bool:
    pending = model.send.pending
    return pending is not None and pending.send_id == send_id and pending.status == "waiting"


def _failed(model: Model, text: str) -> Step:
    model = with_send(model, loading=False, pending=None, error=text)
    return stack.pop_tx(model, cancel=True)  # back to the form, which stays as it was


def on_prepared(model: Model, msg: SolanaSendPrepared, now: int) -> Step:
    pending = model.send.pending
    if pending is None or not _waiting(model, msg.key):
        return model, []
    if msg.result is None:
        return _failed(model, readable(msg.error))
    account = model.accounts.get("solana")
    if account.address is None or account.connector_id is None:
        return _failed(model, BAD_SIGNED)
    params: dict[str, object] = {"transaction": msg.result.transaction, "account": account.address,
                                 "chain": wallet_standard_chain(model.networks.active or "")}
    model, effect = solana_request(model, account.connector_id, "solana:signTransaction", params,
                                   SolanaTransactionSigned, msg.key, timeout_ms=SEND_TIMEOUT_MS)
    pending = replace(pending, eid=effect.eid, tx=(("message", msg.result.message),))
    return with_send(model, pending=pending), [effect]


def _signed(result: object) -> str | None:
    if not isinstance(result, dict):
        return None
    transaction = result.get("transaction")
    if not isinstance(transaction, str) or not 0 < len(transaction) <= L.SOLANA_TRANSACTION_CHARS:
        return None
    return transaction


def on_signed(model: Model, msg: SolanaTransactionSigned, now: int) -> Step:
    pending = model.send.pending
    if pending is None or not _waiting(model, msg.key):
        return model, []
    if not msg.ok:
        if timed_out(msg):
            return send_lost(model, LOST_TIMEOUT), []
        return _failed(model, refusal(msg))
    transaction = _signed(msg.result)
    message = dict(pending.tx).get("message")
    rpc_url = model.networks.active_rpc_url
    if transaction is None or message is None or rpc_url is None:
        return _failed(model, BAD_SIGNED)
    args = {"rpc_url": rpc_url, "transaction": transaction, "message": message}
    return model, [SOLANA_SUBMIT_SEND.call_or_refusal(args, SolanaSendSubmitted, msg.key)]


def on_submitted(model: Model, msg: SolanaSendSubmitted, now: int) -> Step:
    pending = model.send.pending
    if pending is None or not _waiting(model, msg.key):
        return model, []
    if msg.result is None:
        return _failed(model, readable(msg.error) or TX_FAILED)
    if not msg.result.confirmed:
        return _failed(model, TX_FAILED)
    return send_succeeded(model, now, pending)


HANDLERS = (
    On(SolanaSendPrepared, on_prepared),
    On(SolanaTransactionSigned, on_signed),
    On(SolanaSendSubmitted, on_submitted),
)

SLICE = Slice("solana_send", HANDLERS)
