"""The host dApp's EIP-1193 provider when the embedded wallet is the active connector (issue 15 §4).

The renderer's `getProvider()` forwards a request to the engine as the host intent `rpc`
{id, method, params} when the account's connector is the auth connector: the engine is that
wallet. The request goes through `wallet_request` like any slice's, so flows/approval.py applies
behaviour.md §6's lists: safe methods are answered at once, approval methods wait for the approval frame
on the engine's origin, anything else fails with 'Requested RPC call is not allowed'. The answer
reaches the page as the host event `rpc` {id, ok, result} or {id, ok: false, code, message}.

When WalletConnect is the active connector (issue 13) the same intent goes over the visitor's
WalletConnect session (`wallet_request` makes a `walletconnect` effect, runtime/walletconnect.py):
only the methods the session proposal asks for (walletconnect/domain/proposal.py EIP155_METHODS) and the
account/chain reads the runtime answers itself are allowed, one request at a time; a wallet's
rejection (4001, 5000, 5700-5760) reaches the page as 4001, except that EIP-5792's methods keep
their own 5700-5760 errors (issue 32).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypedDict

from pydantic import JsonValue

from ..core.cmds import EffectReply
from ..core.evolve import replace
from ..core.shape import On, Slice
from ..rules import texts
from ..rules.embedded import AUTH_CONNECTOR_ID
from ..slices.connecting import wallet_request
from ..slices.connectors import WALLET_CONNECT_ID
from ..slices.host import HostRequestedRpc
from ..walletconnect.domain.proposal import EIP5792_METHODS, PROPOSED_METHODS

if TYPE_CHECKING:
    from ..slices.model import Model, Step

NAMESPACE = "eip155"
DISCONNECTED = 4900  # EIP-1193: the provider is not connected
PENDING = -32002  # a request to the embedded wallet is already waiting
NOT_ALLOWED = 4200
REJECTED = 4001
# what the host may ask the WalletConnect wallet: the session's methods, and the reads the
# engine's runtime answers from the session itself
WC_METHODS = (*PROPOSED_METHODS, "eth_chainId", "eth_accounts", "eth_requestAccounts")


@dataclass(frozen=True)
class HostRpcAnswered(EffectReply):
    """The embedded wallet's answer to the host's request `key`."""


class RpcAnswered(TypedDict):
    """The wallet's answer to the host's `rpc` intent (PROTOCOL.md, host event `rpc`)."""

    id: str
    ok: Literal[True]
    result: JsonValue


class RpcRefused(TypedDict):
    id: str
    ok: Literal[False]
    code: int
    message: str


def _answer(model: Model, answer: RpcAnswered | RpcRefused) -> Step:
    text = json.dumps(answer, separators=(",", ":"))
    return replace(model, embedded=replace(model.embedded, host_answer=text)), []


def _refuse(model: Model, request_id: str, code: int, message: str) -> Step:
    return _answer(model, {"id": request_id, "ok": False, "code": code, "message": message})


def _walletconnect(model: Model, msg: HostRequestedRpc) -> Step:
    if msg.method not in WC_METHODS:
        return _refuse(model, msg.id, NOT_ALLOWED, texts.RPC_CALL_NOT_ALLOWED)
    if model.embedded.host_pending:
        return _refuse(model, msg.id, PENDING, "A request is already waiting for the wallet")
    model, effect = wallet_request(model, WALLET_CONNECT_ID, msg.method, json.loads(msg.params),
                                   HostRpcAnswered, key=msg.id)
    return replace(model, embedded=replace(model.embedded, host_pending=msg.id,
                                           host_pending_method=msg.method)), [effect]


def on_requested(model: Model, msg: HostRequestedRpc, now: int) -> Step:
    account = model.accounts.get(NAMESPACE)
    if account.status == "connected" and account.connector_id == WALLET_CONNECT_ID:
        return _walletconnect(model, msg)
    if account.status != "connected" or account.connector_id != AUTH_CONNECTOR_ID or not model.embedded.identity:
        return _refuse(model, msg.id, DISCONNECTED, "Disconnected")
    if model.embedded.request is not None:
        return _refuse(model, msg.id, PENDING, "A request is already waiting for approval")
    model, effect = wallet_request(model, AUTH_CONNECTOR_ID, msg.method, json.loads(msg.params),
                                   HostRpcAnswered, key=msg.id)
    return model, [effect]


def on_answered(model: Model, msg: HostRpcAnswered, now: int) -> Step:
    if model.embedded.host_pending == msg.key:
        method = model.embedded.host_pending_method
        model = replace(model, embedded=replace(model.embedded, host_pending="", host_pending_method=""))
        # EIP-5792 gives 5700-5760 their own meanings (unsupported capability, chain, unknown
        # batch...): for its methods those codes reach the host as the wallet sent them
        eip5792_code = method in EIP5792_METHODS and 5700 <= msg.error_code <= 5760
        if msg.failure is not None and msg.failure.kind == "rejected" and not eip5792_code:
            return _refuse(model, msg.key, REJECTED, msg.error_message or "User rejected the request")
    if msg.ok:
        return _answer(model, {"id": msg.key, "ok": True, "result": msg.result})
    return _refuse(model, msg.key, msg.error_code, msg.error_message)


HANDLERS = (On(HostRequestedRpc, on_requested), On(HostRpcAnswered, on_answered))
SLICE = Slice("hostrpc", HANDLERS)
