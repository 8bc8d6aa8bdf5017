"""The outcome an approval shows before the visitor approves (issue 43 item 1).

When an `eth_sendTransaction` or a `wallet_sendCalls` batch waits for approval (the embedded
account or its smart account; the modal's sends and swaps and the host's own requests all come
this way), the engine asks the node to simulate it (`chain_simulate`, eth_simulateV1) and starts
a 1.5 s timer (the network's `simulation_ms`). Until one of them answers, the request's outcome
is pending (the frame draws "Simulating…" and keeps Approve off); the node's answer gives the
simulated outcome; a failure, a node without the method, or the timer gives the outcome
estimated from the call data ("Outcome estimated from the call data"), or unavailable when the
call data says nothing the engine can read: never "no changes" (simulation/outcome.py).

The estimate's fee: beside the simulation the engine asks the node what the call would cost as
the send path prices it (`estimate_fee`: eth_estimateGas × eth_gasPrice, services/backend/send.py), under
the same 1.5 s timer. The estimate waits for that answer (or the timer) and shows "≈ 0.00004
ETH", or "Fee unavailable" when the node would not price it: never a zero fee.

A smart account's request (one UserOperation, a single send or a wallet_sendCalls batch) is
also checked by the chain's bundler (`embedded.userop_check`: eth_estimateUserOperationGas runs
the operation through the EntryPoint), under the same timer: the outcome keeps the node's changes
(or the call data's) and takes the bundler's fee ("Sponsored" when the paymaster would pay) and its
revert or refusal with the reason; it settles once both answered, and a bundler that does not
answer in time is said to be unavailable (simulation/userop.py).

What is executed is the request's call, which the approval tree hashes; the outcome only
changes what the frame draws (issue 43 item 4: a node that lies cannot change what is signed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..chains.catalog import SIMULATION_MS
from ..core.cmds import Call, CancelTimer, Cmd, Dispatch, Reply, StartTimer
from ..core.evolve import replace
from ..core.msg import Msg
from ..core.shape import On, Slice
from ..rules.calls import CallBatch, parse_send_calls
from ..services.domain.handles import CHAIN_SIMULATE, ESTIMATE_FEE, USEROP_CHECK
from ..services.domain.shapes import SIMULATED_CALLS, SIMULATED_LOGS, USEROP_REASON_CHARS, FeeArgs
from ..simulation.outcome import (
    FEE_UNAVAILABLE,
    INSUFFICIENT,
    PENDING,
    Asset,
    CallResult,
    Known,
    Log,
    Outcome,
    Simulation,
    UNISWAP_V2_ROUTER,
    TxCall,
    estimate,
    fee_text,
    is_swap,
    simulated,
)
from ..simulation.userop import BundlerCheck, checked, with_bundler
from ..slices.smart_account import shown_address

if TYPE_CHECKING:
    from ..slices.embedded import EmbeddedRequest
    from ..slices.model import Model, Step

TIMER = "embedded-simulation"
METHODS = ("eth_sendTransaction", "wallet_sendCalls")
_ADDRESS = r"^0x[0-9a-fA-F]{40}$"
_STRICT = ConfigDict(extra="forbid", frozen=True)


class LogAnswer(BaseModel):
    model_config = _STRICT
    address: str = Field(pattern=_ADDRESS)
    topics: list[str] = Field(max_length=4)
    data: str = Field(pattern=r"^0x[0-9a-fA-F]*$", max_length=66)


class CallAnswer(BaseModel):
    model_config = _STRICT
    ok: bool
    gas_used: int = Field(ge=0, lt=2**64)
    logs: list[LogAnswer] = Field(max_length=SIMULATED_LOGS)


class SimulationAnswer(BaseModel):
    """`chain_simulate`'s result as the session's edge bounds it (services/backend/simulate.py)."""

    model_config = _STRICT
    calls: list[CallAnswer] = Field(max_length=SIMULATED_CALLS)
    base_fee: int = Field(ge=0, lt=2**256)
    insufficient: bool = False


@dataclass(frozen=True)
class Simulated(Reply):
    """`chain_simulate` answered (`key`: the request's eid)."""

    result: SimulationAnswer | None = None


class FeeAnswer(BaseModel):
    """`estimate_fee`'s result as the session's edge bounds it (the fee in wei)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    fee: int = Field(ge=0, lt=2**256)


@dataclass(frozen=True)
class OutcomeFee(Reply):
    """`estimate_fee` answered for the estimate's fee (`key`: the request's eid)."""

    result: FeeAnswer | None = None


class UserOpAnswer(BaseModel):
    """`embedded.userop_check`'s result as the session's edge bounds it (embedded/smart_estimate.py)."""

    model_config = _STRICT
    status: Literal["ok", "reverted", "refused"]
    gas: int = Field(ge=0, lt=2**64)
    fee: int = Field(ge=0, lt=2**256)
    sponsored: bool
    reason: str = Field(max_length=USEROP_REASON_CHARS)


@dataclass(frozen=True)
class UserOpChecked(Reply):
    """The bundler's check of a smart account's request answered (`key`: the request's eid)."""

    result: UserOpAnswer | None = None


@dataclass(frozen=True)
class SimulationDue(Msg):
    """The simulation of request `eid` had its time (1.5 s unless the network says otherwise)."""

    eid: str


def _calls(request: EmbeddedRequest, account: str) -> list[TxCall] | None:
    try:
        params = json.loads(request.params)
    except ValueError:
        return None
    if request.method == "wallet_sendCalls":
        batch = parse_send_calls(params, account)
        if not isinstance(batch, CallBatch):
            return None
        return [TxCall(c.to, c.value, c.data) for c in batch.calls]
    if not isinstance(params, list) or not params or not isinstance(params[0], dict):
        return None
    tx = params[0]
    data = tx.get("data") or tx.get("input") or "0x"
    try:
        value = int(str(tx.get("value") or "0x0"), 0)
    except ValueError:
        return None
    return [TxCall(str(tx.get("to") or ""), value, str(data))]


def known(model: Model, chain: str) -> Known:
    """What the engine knows on `chain`: its currency and tokens, the swap router it built a
    transaction for (named as the approval rows name it, embedded/approval_tree.py), and the
    contracts the host declared (`contracts` option)."""
    network = model.networks.get(chain) if chain else None
    native = Asset(network.native.symbol, network.native.decimals) if network else Asset("ETH", 18)
    tokens = {t.address.lower(): Asset(t.symbol, t.decimals) for t in network.tokens} if network else {}
    swap = model.swap.pending.swap if model.swap.pending else model.swap.quote.swap if model.swap.quote else None
    tx = dict(swap or ())
    names = {tx["to"].lower(): UNISWAP_V2_ROUTER} if tx.get("to") and is_swap(tx.get("data", "")) else {}
    return Known(native, tokens, names, frozenset(a.lower() for a in model.options.contracts))


def _with(model: Model, request: EmbeddedRequest, outcome: Outcome) -> Model:
    return replace(model, embedded=replace(model.embedded, request=replace(request, outcome=outcome)))


def start(model: Model, request: EmbeddedRequest) -> Step:
    """Simulate a request waiting for approval (or estimate it at once without a node)."""
    if request.method not in METHODS:
        return model, []
    account = shown_address(model, request.chain)
    calls = _calls(request, account)
    if calls is None:
        return _with(model, request, Outcome("unavailable")), []
    network = model.networks.get(request.chain) if request.chain else None
    rpc_url = network.rpc_urls[0] if network is not None and network.rpc_urls else ""
    args = {"rpc_url": rpc_url, "account": account,
            "calls": [{"to": c.to, "value": hex(c.value), "data": c.data} for c in calls]}
    if not rpc_url:
        return _with(model, request, estimate(calls, account, known(model, request.chain))), []
    call = CHAIN_SIMULATE.call_or_refusal(args, Simulated, key=request.eid)
    # the EOA's one call is priced as the send path prices it; a batch of several calls from the
    # EOA is not ("Fee unavailable"); a smart account's UserOperation is the bundler's to price
    # and check (its gas, perhaps a paymaster, its revert)
    smart = bool(model.smart.owner) and account.lower() != model.smart.owner.lower()
    priced = len(calls) == 1 and not smart
    commands: list[Cmd] = [call, *(_fee_call(rpc_url, account, calls[0], request.eid) if priced else [])]
    if smart:
        commands.append(USEROP_CHECK.call_or_refusal(
            {"chain": request.chain, "owner": model.smart.owner, "account": account, "method": request.method,
             "calls": args["calls"]}, UserOpChecked, key=request.eid))
    pending = replace(request, outcome=PENDING, simulation="asked", fee="" if priced or smart else FEE_UNAVAILABLE,
                      bundler="asked" if smart else "", reason="", held=None)
    bound = network.simulation_ms if network is not None else SIMULATION_MS
    return _with(model, pending, PENDING), [*commands, StartTimer(TIMER, bound, SimulationDue(request.eid))]


def _fee_call(rpc_url: str, account: str, call: TxCall, eid: str) -> list[Call[FeeArgs] | Dispatch]:
    """The node's price of the call (eth_estimateGas from the account × eth_gasPrice, what the
    modal's send preview asks, services/backend/send.py)."""
    tx = {"from": account, **({"to": call.to} if call.to else {}), "value": hex(call.value), "data": call.data or "0x"}
    return [ESTIMATE_FEE.call_or_refusal({"rpc_url": rpc_url, "tx": tx}, OutcomeFee, key=eid)]


def _waiting(model: Model, eid: str) -> EmbeddedRequest | None:
    request = model.embedded.request
    if request is None or request.eid != eid or request.outcome is None or request.outcome.status != "pending":
        return None
    return request


def _from_call_data(model: Model, request: EmbeddedRequest) -> Outcome:
    """The outcome from the call data, with the fee the node estimated (or "Fee unavailable"),
    warned when the node said the account cannot pay."""
    account = shown_address(model, request.chain)
    calls = _calls(request, account)
    fee = request.fee or FEE_UNAVAILABLE
    outcome = estimate(calls, account, known(model, request.chain), fee) if calls is not None else Outcome(
        "unavailable", fee=fee)
    if request.simulation == "insufficient":
        outcome = replace(outcome, warnings=(*outcome.warnings, INSUFFICIENT))
    return outcome


def _estimated(model: Model, request: EmbeddedRequest) -> Model:
    return _with(model, replace(request, simulation="asked", fee=""), _from_call_data(model, request))


def _from_bundler(model: Model, request: EmbeddedRequest) -> Model:
    """A UserOperation's outcome: the node's simulated changes (or the call data's), with the
    bundler's fee and check (simulation/userop.py); a check not in yet is unavailable."""
    outcome = request.held if request.held is not None else _from_call_data(model, request)
    check = BundlerCheck(request.bundler or "failed", request.fee, request.reason)
    done = replace(request, simulation="asked", fee="", bundler="", reason="", held=None)
    return _with(model, done, with_bundler(outcome, check))


def _settle(model: Model, request: EmbeddedRequest) -> Step:
    """The estimate once the simulation failed and the fee is in; a UserOperation's outcome once
    the node and the bundler both answered; until then, still pending."""
    if request.bundler:
        if request.simulation == "asked" or request.bundler == "asked":
            return _with(model, request, PENDING), []
        return _from_bundler(model, request), [CancelTimer(TIMER)]
    if request.simulation == "asked" or not request.fee:
        return _with(model, request, PENDING), []
    return _estimated(model, request), [CancelTimer(TIMER)]


def on_simulated(model: Model, msg: Simulated, now: int) -> Step:
    request = _waiting(model, msg.key)
    if request is None:
        return model, []
    if not msg.ok or msg.result is None:
        return _settle(model, replace(request, simulation="failed"))
    if msg.result.insufficient:  # the node says it cannot be paid: the call data's outcome, warned
        return _settle(model, replace(request, simulation="insufficient"))
    account = shown_address(model, request.chain)
    calls = _calls(request, account) or []
    sim = Simulation(tuple(CallResult(c.ok, c.gas_used, tuple(Log(g.address.lower(), tuple(t.lower() for t in g.topics),
                                                                  g.data) for g in c.logs))
                           for c in msg.result.calls), msg.result.base_fee)
    outcome = simulated(sim, account, calls, known(model, request.chain))
    if request.bundler:  # a UserOperation: the bundler's fee and check still to come in
        return _settle(model, replace(request, simulation="done", held=outcome))
    done = replace(request, simulation="asked", fee="")
    return _with(model, done, outcome), [CancelTimer(TIMER)]


def on_due(model: Model, msg: SimulationDue, now: int) -> Step:
    request = _waiting(model, msg.eid)
    if request is None:
        return model, []
    if request.bundler:
        return _from_bundler(model, request), []
    return _estimated(model, request), []


def on_userop(model: Model, msg: UserOpChecked, now: int) -> Step:
    request = _waiting(model, msg.key)
    if request is None or request.bundler != "asked":
        return model, []
    if not msg.ok or msg.result is None:  # the bundler is down, slow or out of shape
        return _settle(model, replace(request, bundler="failed", fee=FEE_UNAVAILABLE))
    answer = msg.result
    check = checked(answer.status, answer.fee, answer.sponsored, answer.reason, known(model, request.chain))
    return _settle(model, replace(request, bundler=check.status, fee=check.fee, reason=check.reason))


def on_fee(model: Model, msg: OutcomeFee, now: int) -> Step:
    request = _waiting(model, msg.key)
    if request is None:
        return model, []
    wei = msg.result.fee if msg.ok and msg.result is not None else 0
    return _settle(model, replace(request, fee=fee_text(wei, known(model, request.chain))))


HANDLERS = (On(Simulated, on_simulated), On(SimulationDue, on_due), On(OutcomeFee, on_fee),
            On(UserOpChecked, on_userop))

SLICE = Slice("simulation", HANDLERS)
