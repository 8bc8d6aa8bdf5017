"""The embedded wallet answering wallet requests (issue 15 §4; behaviour.md §6 method lists).

A slice asks the embedded wallet through `wallet_request` like any wallet; on the auth connector
the request is kept in `model.embedded.request` and never sent to the page. This flow answers it:

- safe methods at once (eth_chainId, eth_accounts, eth_requestAccounts; wallet_switchEthereumChain
  to a configured chain only, behaviour.md §5; eth_call and eth_getBalance read from the network's RPC;
  wallet_getAssets from the configured chains' balances, flows/assets.py);
- approval methods (personal_sign, eth_signTypedData_v4, eth_sendTransaction) open
  ApproveTransaction, which draws the approval frame served by the engine's own origin; only
  `ApprovalDecided` (delivered by the engine's approval route, never by a node of the page's
  tree) approves, then the engine's signer runs as the call `embedded.sign`;
- anything else is refused with 'Requested RPC call is not allowed', and 'Action not allowed'
  shows 300 ms later (behaviour.md §5, §8).

The answer reaches the asking slice as the `EffectReply` it named, as a browser wallet's would.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.cmds import StartTimer
from ..core.evolve import replace
from ..core.msg import Msg
from ..core.shape import On, Slice
from ..rules import limits as L
from ..rules import texts
from ..slices import router, snack
from ..slices.connecting import Restored
from ..slices.smart_account import shown_address
from ..slices.embedded import (
    APPROVAL_METHODS,
    SAFE_METHODS,
    ApprovalDecided,
    ApprovalTimedOut,
    EmbeddedRead,
    EmbeddedRequest,
    EmbeddedSigned,
)
from . import assets, calls, simulation
from .wallet_answer import APPROVE_VIEW, TIMER, answer
from ..services.domain.handles import CHAIN_READ, EMBEDDED_RESOLVE, EMBEDDED_SIGN

if TYPE_CHECKING:
    from ..slices.model import Model, Step

APPROVAL_TIMEOUT_MS = L.APPROVAL_TIMEOUT_MS  # the frame waits this long for the visitor
NOT_ALLOWED_DELAY_MS = 300  # behaviour.md §8: the UI says 'Action not allowed' after 300 ms
USER_REJECTED = 4001
NOT_ALLOWED = 4200
UNRECOGNIZED_CHAIN = 4902
SIGN_SERVICE = EMBEDDED_SIGN
RESOLVE_SERVICE = EMBEDDED_RESOLVE  # the outcome of an approved request whose answer was lost
READ_SERVICE = CHAIN_READ  # services/backend/table.py: a read on the network's RPC
READS = ("eth_call", "eth_getBalance")


@dataclass(frozen=True)
class ActionNotAllowedDue(Msg):
    pass


def _safe(model: Model, request: EmbeddedRequest) -> Step:
    address = model.accounts.get("eip155").address
    network = model.networks.get(request.chain) if request.chain else None
    if request.method == "eth_chainId":
        return answer(model, request, result=network.chain_id_hex if network else "0x1")
    if request.method in ("eth_accounts", "eth_requestAccounts"):
        return answer(model, request, result=[address] if address else [])
    if request.method == "wallet_switchEthereumChain":
        params = json.loads(request.params)
        wanted = params[0].get("chainId") if params and isinstance(params[0], dict) else None
        known = [n for n in model.networks.known if n.namespace == "eip155" and n.chain_id_hex == wanted]
        if not known:  # the embedded wallet supports only configured chains (behaviour.md §5)
            return answer(model, request, code=UNRECOGNIZED_CHAIN, message=texts.CHAIN_NOT_SUPPORTED)
        return answer(model, request, result=None)
    if request.method in READS:  # behaviour.md §6: read-only, no approval; the network's RPC answers
        params = json.loads(request.params)
        rpc_url = network.rpc_urls[0] if network is not None and network.rpc_urls else ""
        if not rpc_url or not isinstance(params, list):
            return answer(model, request, code=-32603, message="The network has no RPC to read from")
        model = replace(model, embedded=replace(model.embedded, request=replace(request, signing=True)))
        args = {"rpc_url": rpc_url, "method": request.method, "params": params}
        return model, [READ_SERVICE.call_or_refusal(args, EmbeddedRead, key=request.eid)]
    if request.method == assets.METHOD:  # behaviour.md §6: read-only, no approval; EIP-7811
        return assets.start(model, request)
    if request.method == calls.CAPABILITIES:  # EIP-5792 (issue 32)
        return calls.capabilities(model, request)
    if request.method == calls.STATUS:
        return calls.status(model, request)
    if request.method == calls.SHOW:
        return calls.show(model, request)
    return _not_allowed(model, request)


def _not_allowed(model: Model, request: EmbeddedRequest) -> Step:
    model, cmds = answer(model, request, code=NOT_ALLOWED, message=texts.RPC_CALL_NOT_ALLOWED)
    return model, [*cmds, StartTimer("embedded-not-allowed", NOT_ALLOWED_DELAY_MS, ActionNotAllowedDue())]


def observe(before: Model, after: Model, now: int) -> Step:
    """A new request to the embedded wallet is answered, or waits for approval; an approval
    view the visitor left (back) rejects its request."""
    request = after.embedded.request
    previous = before.embedded.request
    if request is not None and (previous is None or previous.eid != request.eid):
        if request.method in APPROVAL_METHODS:
            if request.method == calls.SEND:  # refused before anything is shown (issue 32)
                after, refused = calls.check_send(after, request)
                if refused is not None:
                    return refused
                request = after.embedded.request
                assert request is not None
            # the approval is drawn in the modal: it opens if it was closed
            model = replace(after, router=router.push(after.router, APPROVE_VIEW, request.eid),
                            modal=replace(after.modal, open=True))
            # issue 43: what it will do, simulated (at most 1.5 s) or estimated (flows/simulation.py)
            model, simulate = simulation.start(model, request)
            return model, [StartTimer(TIMER, APPROVAL_TIMEOUT_MS, ApprovalTimedOut(request.eid)), *simulate]
        if request.method in SAFE_METHODS:
            return _safe(after, request)
        return _not_allowed(after, request)
    if (request is not None and previous is not None and previous.eid == request.eid
            and not request.signing and before.router.view == APPROVE_VIEW
            and not after.router.contains(APPROVE_VIEW)):
        return answer(after, request, code=USER_REJECTED, message="User rejected the request.")
    return after, []


def on_decided(model: Model, msg: ApprovalDecided, now: int) -> Step:
    request = model.embedded.request
    if request is None or request.eid != msg.eid or request.signing:
        return model, []
    if not msg.approve:
        return answer(model, request, code=USER_REJECTED, message="User rejected the request.")
    signing = replace(request, signing=True)
    model = replace(model, embedded=replace(model.embedded, request=signing))
    return model, [SIGN_SERVICE.call_or_refusal(_sign_args(model, request), EmbeddedSigned, key=request.eid)]


def _sign_args(model: Model, request: EmbeddedRequest) -> dict[str, str]:
    """`account`: the address the request is from (the smart account or the EOA, issue 32);
    `request`: what the signer records a send under before broadcasting it (issue 38)."""
    return {"identity": model.embedded.identity, "method": request.method, "params": request.params,
            "chain": request.chain, "account": shown_address(model, request.chain), "request": request.eid}


def on_restored(model: Model, msg: Restored, now: int) -> Step:
    """Exactly once across crashes (issue 38): a request approved and being signed when the
    previous process stopped is resolved, never left pending nor signed anew. The engine looks
    its outcome up (`embedded.resolve`: the record the signer wrote before broadcasting, then the
    chain or the bundler) and answers it as the signer would have: the hash when it landed, a
    typed failure when nothing was sent. A safe read in flight is simply read again."""
    request = model.embedded.request
    if request is None or not request.signing:
        return model, []
    if request.method in APPROVAL_METHODS:
        return model, [RESOLVE_SERVICE.call_or_refusal(_sign_args(model, request), EmbeddedSigned, key=request.eid)]
    unsent = replace(request, signing=False)
    return _safe(replace(model, embedded=replace(model.embedded, request=unsent)), unsent)


def on_signed(model: Model, msg: EmbeddedSigned | EmbeddedRead, now: int) -> Step:
    """The engine's signer (`embedded.sign`) or the network (`chain_read`) answered the request
    in flight: hand its result, or the failure, to the asking slice."""
    request = model.embedded.request
    if request is None or request.eid != msg.key or not request.signing:
        return model, []
    if not msg.ok or msg.result is None:
        return answer(model, request, code=-32603, message=msg.error or "The request failed")
    if request.method == calls.SEND:  # EIP-5792 2.0.0 answers an object
        return calls.sent(model, request, str(msg.result.result))
    return answer(model, request, result=msg.result.result)


def on_timed_out(model: Model, msg: ApprovalTimedOut, now: int) -> Step:
    request = model.embedded.request
    if request is None or request.eid != msg.eid or request.signing:
        return model, []
    return answer(model, request, code=-32603, message="timeout")


def on_not_allowed_due(model: Model, msg: ActionNotAllowedDue, now: int) -> Step:
    return snack.show_error(model, texts.ACTION_NOT_ALLOWED)


HANDLERS = (
    On(ApprovalDecided, on_decided),
    On(EmbeddedSigned, on_signed),
    On(EmbeddedRead, on_signed),
    On(ApprovalTimedOut, on_timed_out),
    On(ActionNotAllowedDue, on_not_allowed_due),
    On(Restored, on_restored),
)

SLICE = Slice("approval", HANDLERS, observe=observe)
