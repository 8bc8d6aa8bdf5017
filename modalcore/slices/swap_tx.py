"""A swap's wallet requests (issue 16, behaviour.md §4 transaction stack): Review swap opens SwapPreview;
its press sends the approve (when the quote says the allowance is short; the exact amount), waits
until the approval is mined (service `tx_receipt`), then sends the swap; each an
`eth_sendTransaction` through the active connector.

The send rules hold: one pending request at a time, only the answer carrying the request's id
counts, a request lost with a reload (or unanswered) is shown lost with Try again and never sent
again by the engine itself. The stack entry pushed at the press resets to Account on success
(balances and Activity refreshed) and goes back to the form on cancel, with the reason shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from ..core.cmds import CancelEffect, EffectReply, Reply
from ..core.evolve import replace
from ..core.msg import Msg
from . import balances, history, router, snack, stack
from .connecting import held_by_engine, wallet_request
from .send_tx import LOST_RELOAD, LOST_TIMEOUT, NO_ACCOUNT, SEND_TIMEOUT_MS, answer_error, timed_out
from .swap_form import PendingSwap, current_quote, problem, with_swap
from .swap_quote import QUOTE_NOT_READY, requote
from ..services.domain.handles import TX_RECEIPT

if TYPE_CHECKING:
    from .model import Model, Step

APPROVAL_FAILED = "The approval failed on chain"
APPROVAL_NOT_MINED = "The approval was not mined in time: check your wallet's activity"
MAX_RECEIPT_ASKS = 30  # × 20 s: ten minutes for an approval to be mined
SWAPPED = "Swap sent"
SWAP_VIEWS = ("Swap", "SwapPreview")


@dataclass(frozen=True)
class PressedSwapReview(Msg):
    pass


@dataclass(frozen=True)
class PressedSwapConfirm(Msg):
    pass


@dataclass(frozen=True)
class PressedRetrySwap(Msg):
    pass


@dataclass(frozen=True)
class PressedDiscardSwap(Msg):
    pass


@dataclass(frozen=True)
class SwapApproveAnswered(EffectReply):
    """The wallet answered the approve request (`key`: the swap id)."""


@dataclass(frozen=True)
class SwapTxAnswered(EffectReply):
    """The wallet answered the swap request (`key`: the swap id)."""


class Receipt(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    status: str


@dataclass(frozen=True)
class SwapApprovalMined(Reply):
    """The approval of swap `key` was mined (or failed)."""

    result: Receipt | None = None


def on_review(model: Model, msg: PressedSwapReview, now: int) -> Step:
    issue = problem(model)
    if issue is not None:
        return with_swap(model, error=issue), []
    if current_quote(model) is None:
        return with_swap(model, error=model.swap.quote_error or QUOTE_NOT_READY), []
    model = with_swap(model, error=None, picking=None)
    return replace(model, router=router.push(model.router, "SwapPreview")), []


def on_confirm(model: Model, msg: PressedSwapConfirm, now: int) -> Step:
    if model.swap.pending is not None:
        return model, []  # one wallet request at a time; a lost one is retried explicitly
    return start(model)


def _refuse(model: Model, text: str) -> Step:
    return with_swap(model, loading=False, error=text), []


def start(model: Model) -> Step:
    account = model.accounts.get(model.networks.active_namespace)
    if account.address is None or account.connector_id is None:
        return _refuse(model, NO_ACCOUNT)
    issue = problem(model)
    if issue is not None:
        return _refuse(model, issue)
    quote = current_quote(model)
    if quote is None:
        return _refuse(model, QUOTE_NOT_READY)
    model, swap_id = model.next_id("swap")
    first = quote.approve or quote.swap
    reply = SwapApproveAnswered if quote.approve else SwapTxAnswered
    model, effect = wallet_request(model, account.connector_id, "eth_sendTransaction", [dict(first)], reply,
                                   swap_id, timeout_ms=SEND_TIMEOUT_MS)
    pending = PendingSwap(swap_id, effect.eid, "approve" if quote.approve else "swap", quote.approve, quote.swap)
    model = replace(model, router=router.push_tx(model.router, router.TxEntry(view="Account")))
    return with_swap(model, loading=True, error=None, pending=pending), [effect]


def _waiting(model: Model, msg: EffectReply, step: str) -> PendingSwap | None:
    pending = model.swap.pending
    if (pending is None or pending.swap_id != msg.key or pending.eid != msg.eid or pending.step != step
            or pending.status != "waiting"):
        return None
    return pending


def _failed(model: Model, text: str) -> Step:
    """Cancelled or refused: back to the form (behaviour.md §4 transaction stack), the reason shown."""
    model = with_swap(model, loading=False, pending=None, error=text)
    return stack.pop_tx(model, cancel=True)


def on_approve_answered(model: Model, msg: SwapApproveAnswered, now: int) -> Step:
    pending = _waiting(model, msg, "approve")
    if pending is None:
        return model, []
    if timed_out(msg):
        return _lost(model, LOST_TIMEOUT), []
    error = answer_error(msg)
    if error is not None:
        return _failed(model, error)
    rpc_url = model.networks.active_rpc_url or ""
    model = with_swap(model, pending=replace(pending, step="approving", approve_hash=str(msg.result)))
    return model, [TX_RECEIPT.call_or_refusal({"rpc_url": rpc_url, "hash": msg.result}, SwapApprovalMined,
                                                pending.swap_id)]


def on_approval_mined(model: Model, msg: SwapApprovalMined, now: int) -> Step:
    pending = model.swap.pending
    if pending is None or pending.swap_id != msg.key or pending.step != "approving":
        return model, []
    if msg.result is not None and msg.result.status == "pending" and pending.receipt_asks < MAX_RECEIPT_ASKS:
        rpc_url = model.networks.active_rpc_url or ""
        model = with_swap(model, pending=replace(pending, receipt_asks=pending.receipt_asks + 1))
        return model, [TX_RECEIPT.call(TX_RECEIPT.args(rpc_url=rpc_url, hash=pending.approve_hash),
                                         SwapApprovalMined, pending.swap_id)]
    if msg.result is not None and msg.result.status == "pending":
        return _failed(model, APPROVAL_NOT_MINED)
    if msg.result is None or msg.result.status != "confirmed":
        return _failed(model, APPROVAL_FAILED if msg.result is not None else msg.error or APPROVAL_FAILED)
    account = model.accounts.get(model.networks.active_namespace)
    if account.connector_id is None:
        return _failed(model, NO_ACCOUNT)
    model, effect = wallet_request(model, account.connector_id, "eth_sendTransaction", [dict(pending.swap)],
                                   SwapTxAnswered, pending.swap_id, timeout_ms=SEND_TIMEOUT_MS)
    return with_swap(model, pending=replace(pending, step="swap", eid=effect.eid)), [effect]


def on_swap_answered(model: Model, msg: SwapTxAnswered, now: int) -> Step:
    if _waiting(model, msg, "swap") is None:
        return model, []
    if timed_out(msg):
        return _lost(model, LOST_TIMEOUT), []
    error = answer_error(msg)
    if error is not None:
        return _failed(model, error)
    model = with_swap(model, loading=False, pending=None)
    model, cmds = stack.pop_tx(model)
    if model.router.view in SWAP_VIEWS:
        model = replace(model, router=router.reset(model.router, "Account"))
    model = with_swap(model, amount="", quote=None, quote_error=None, quoting=None, error=None)
    model, fetch = balances.fetch(model, now, force=True)
    model, refetch = history.refresh(model, now)
    model, shown = snack.show(model, SWAPPED)
    return model, [*cmds, *fetch, *refetch, *shown]


def _lost(model: Model, reason: str) -> Model:
    pending = model.swap.pending
    if pending is None:
        return model
    tx_stack = model.router.tx_stack
    model = replace(model, router=replace(model.router, tx_stack=tx_stack[:-1]))
    return with_swap(model, loading=False, pending=replace(pending, status="lost", reason=reason))


def on_reattached(model: Model, msg: Any, now: int) -> Step:
    """A reloaded page lost the wallet request it was running: shown lost, never asked again by
    the engine (`msg` is connection.Reattached). An approval being mined is the engine's own
    call: it goes on."""
    pending = model.swap.pending
    if not msg.reloaded or pending is None or pending.status != "waiting" or pending.step == "approving":
        return model, []
    if held_by_engine(model, pending.eid):  # the embedded wallet holds it (issue 38): not lost
        return model, []
    return _lost(model, LOST_RELOAD), [CancelEffect(pending.eid)]


def on_retry(model: Model, msg: PressedRetrySwap, now: int) -> Step:
    pending = model.swap.pending
    if pending is None or pending.status != "lost":
        return model, []
    if pending.step == "swap":  # the approval is done: only the swap is asked again
        account = model.accounts.get(model.networks.active_namespace)
        if account.connector_id is None:
            return _failed(model, NO_ACCOUNT)
        model, effect = wallet_request(model, account.connector_id, "eth_sendTransaction", [dict(pending.swap)],
                                       SwapTxAnswered, pending.swap_id, timeout_ms=SEND_TIMEOUT_MS)
        model = replace(model, router=router.push_tx(model.router, router.TxEntry(view="Account")))
        return with_swap(model, loading=True, error=None,
                         pending=replace(pending, eid=effect.eid, status="waiting", reason="")), [effect]
    model = with_swap(model, pending=None)
    if current_quote(model) is None:  # the quote went with the form: ask again first
        return requote(model)
    return start(model)


def on_discard(model: Model, msg: PressedDiscardSwap, now: int) -> Step:
    pending = model.swap.pending
    if pending is None or pending.status != "lost":
        return model, []
    return with_swap(model, pending=None, loading=False), []
