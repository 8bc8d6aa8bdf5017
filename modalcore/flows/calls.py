"""EIP-5792 on the embedded wallet's smart account (issue 32 item 4; behaviour.md §6: wallet_sendCalls
waits for approval, wallet_getCapabilities and wallet_getCallsStatus are read-only).

- `wallet_getCapabilities [address, chainIds?]`: per configured chain where `address` is the
  visitor's smart account, `{atomic: {status: "supported"}, paymasterService: {supported}}`
  (EIP-5792 2.0.0 `atomic`; EIP-7677 `paymasterService` true where the operator's policy has the
  engine's own verifying paymaster sponsor this project's batches on that chain, a budget
  permitting; an app's paymaster URL is not called); where it is the EOA, `atomic` is
  "unsupported".
  Another address is 4100; nothing is read.
- `wallet_sendCalls`: checked before anything is shown (rules/calls.py: shape, at most
  MAX_CALLS, 0x-prefixed `to`; the chain must have the visitor's smart account, 5710; the EOA
  cannot batch, 5760): a refusal answers at once and nothing is sent. Else ONE approval lists
  every decoded call (embedded/decode_calls.py) and the signer sends them as one UserOperation
  (executeBatch); the answer is `{id}`.
- `wallet_getCallsStatus [id]`: the engine's `embedded.calls_status` asks the chain's bundler
  for the operation's receipt: `{version, id, chainId, status, atomic: true, receipts}`.
- `wallet_showCallsStatus [id]`: opens CallsStatus in the modal, which reads the same status
  (and again every REFRESH_MS while pending); the request is answered at once (null).
- A batch sent from a smart account that is not deployed yet deploys it (its UserOperation
  carries the initCode), but the answer (`{id}`) comes when the bundler took it, before the
  chain has the code: the engine follows that operation itself (every DEPLOY_POLL_MS, at most
  DEPLOY_POLLS times) and once it is no longer pending reads the smart account again, so the
  host's account event says `smartAccountDeployed: true` without a reload (issue 46).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.cmds import Cmd, StartTimer
from ..core.evolve import replace
from ..core.msg import Msg
from ..core.shape import On, Slice
from ..rules import calls as rules
from ..slices import router
from ..slices.calls import (STATUS_SERVICE, VIEW, CallsState, CallsStatusRead, CallsStatusResult,
                            PressedRefreshCallsStatus, ShownBatch)
from ..slices.embedded import EmbeddedRequest
from ..slices.smart_account import SMART_ACCOUNT, smart_account_of
from . import smart_account
from .wallet_answer import INTERNAL_ERROR, answer

if TYPE_CHECKING:
    from ..chains.catalog import Network
    from ..slices.model import Model, Step

SEND = "wallet_sendCalls"
STATUS = "wallet_getCallsStatus"
SHOW = "wallet_showCallsStatus"
CAPABILITIES = "wallet_getCapabilities"
READS = (CAPABILITIES, STATUS, SHOW)
VERSION = "2.0.0"
REFRESH_MS = 3000  # CallsStatus reads a pending batch again this often
REFRESH_TIMER = "calls-status"
VIEW_KEY = "view:"
DEPLOY_KEY = "deploy:"  # + polls so far + ":" + calls id: the engine's own follow of a deploying batch
DEPLOY_POLL_MS = 1000
DEPLOY_POLLS = 120  # two minutes; past them a reload reads the account again (flows/smart_account.py)


@dataclass(frozen=True)
class CallsStatusDue(Msg):
    pass


@dataclass(frozen=True)
class DeployStatusDue(Msg):
    """Time to read the status of a batch that deploys the smart account again."""

    calls_id: str
    polls: int


def _network(model: Model, chain_id: int) -> Network | None:
    return next((n for n in model.networks.known if n.namespace == "eip155" and n.reference == str(chain_id)), None)


def _refuse(model: Model, request: EmbeddedRequest, refusal: rules.CallsRefusal) -> Step:
    return answer(model, request, code=refusal.code, message=refusal.message)


def _smart_on(model: Model, chain: str) -> str | None:
    """The visitor's smart account address on `chain` when it is the account in use there."""
    account = smart_account_of(model, chain)
    if account is None or model.smart.preferred != SMART_ACCOUNT:
        return None
    return account.address


def check_send(model: Model, request: EmbeddedRequest) -> tuple[Model, Step | None]:
    """A wallet_sendCalls request that must be refused is answered (the Step); otherwise it goes
    on to the approval with its `chain` set to the batch's chain (the Model)."""
    params = json.loads(request.params)
    first = params[0] if isinstance(params, list) and params and isinstance(params[0], dict) else {}
    chain_id = first.get("chainId")
    network = _network(model, int(chain_id, 16)) if isinstance(chain_id, str) and rules.is_chain_id(chain_id) else None
    if network is None or smart_account_of(model, network.id) is None:
        parsed = rules.parse_send_calls(params, model.smart.owner or rules.NO_ADDRESS)
        if isinstance(parsed, rules.CallsRefusal) and parsed.code != rules.UNAUTHORIZED:
            return model, _refuse(model, request, parsed)
        return model, _refuse(model, request, rules.CallsRefusal(rules.UNSUPPORTED_CHAIN, "Unsupported chain id"))
    smart = _smart_on(model, network.id)
    if smart is None:
        return model, _refuse(model, request, rules.CallsRefusal(
            rules.ATOMICITY_UNSUPPORTED, "The account in use is an EOA: switch to the smart account to batch calls"))
    batch = rules.parse_send_calls(params, smart)
    if isinstance(batch, rules.CallsRefusal):
        return model, _refuse(model, request, batch)
    if batch.paymaster_required and model.project_id not in network.sponsored_projects:
        return model, _refuse(model, request, rules.CallsRefusal(
            rules.UNSUPPORTED_CAPABILITY, "paymasterService is not offered for this application on this chain"))
    rechained = replace(request, chain=network.id)
    return replace(model, embedded=replace(model.embedded, request=rechained)), None


def capabilities(model: Model, request: EmbeddedRequest) -> Step:
    asked = rules.parse_capabilities_request(json.loads(request.params))
    if isinstance(asked, rules.CallsRefusal):
        return _refuse(model, request, asked)
    address, chain_ids = asked
    owner = model.smart.owner
    smart_chains = {a.chain: a.address for a in model.smart.accounts}
    mine = address.lower() == owner.lower() or any(address.lower() == a.lower() for a in smart_chains.values())
    if not owner or not mine:
        return _refuse(model, request, rules.CallsRefusal(rules.UNAUTHORIZED, "Unauthorized address"))
    result: dict[str, object] = {}
    for network in model.networks.known:
        if network.namespace != "eip155" or (chain_ids is not None and int(network.reference) not in chain_ids):
            continue
        smart = smart_chains.get(network.id)
        if smart is not None and smart.lower() == address.lower():
            sponsored = model.project_id in network.sponsored_projects
            result[network.chain_id_hex] = {"atomic": {"status": "supported"},
                                            "paymasterService": {"supported": sponsored}}
        elif address.lower() == owner.lower():
            result[network.chain_id_hex] = {"atomic": {"status": "unsupported"}}
    return answer(model, request, result=result)


def _status_call(network: Network, user_op_hash: str, key: str) -> Cmd:
    return STATUS_SERVICE.call_or_refusal({"chain": network.id, "user_op_hash": user_op_hash}, CallsStatusRead,
                                          key=key)


def _batch_network(model: Model, request: EmbeddedRequest) -> tuple[str, Network] | rules.CallsRefusal:
    parsed = rules.parse_calls_id(json.loads(request.params))
    if isinstance(parsed, rules.CallsRefusal):
        return parsed
    user_op_hash, chain_id = parsed
    network = _network(model, chain_id)
    if network is None or smart_account_of(model, network.id) is None:
        return rules.CallsRefusal(rules.UNKNOWN_BUNDLE, "Unknown calls id")
    return user_op_hash, network


def status(model: Model, request: EmbeddedRequest) -> Step:
    found = _batch_network(model, request)
    if isinstance(found, rules.CallsRefusal):
        return _refuse(model, request, found)
    user_op_hash, network = found
    model = replace(model, embedded=replace(model.embedded, request=replace(request, signing=True)))
    return model, [_status_call(network, user_op_hash, request.eid)]


def show(model: Model, request: EmbeddedRequest) -> Step:
    found = _batch_network(model, request)
    if isinstance(found, rules.CallsRefusal):
        return _refuse(model, request, found)
    user_op_hash, network = found
    calls_id = rules.calls_id(user_op_hash, int(network.reference))
    shown = ShownBatch(calls_id, network.id, reading=True)
    model = replace(model, calls=CallsState(shown=shown))
    model, cmds = answer(model, request, result=None)
    model = replace(model, router=router.push(model.router, VIEW), modal=replace(model.modal, open=True))
    return model, [*cmds, _status_call(network, user_op_hash, VIEW_KEY + calls_id)]


def status_answer(calls_id: str, chain_id: int, result: CallsStatusResult) -> dict[str, object]:
    """EIP-5792 2.0.0's wallet_getCallsStatus answer (one UserOperation: atomic)."""
    return {"version": VERSION, "id": calls_id, "chainId": hex(chain_id), "status": result.status,
            "atomic": True, "receipts": [r.model_dump() for r in result.receipts]}


def sent(model: Model, request: EmbeddedRequest, calls_id: str) -> Step:
    """The signer sent the batch: answer `{id}`; a batch from an undeployed smart account is
    followed until the chain has it."""
    chain = request.chain
    model, cmds = answer(model, request, result={"id": calls_id})
    smart = smart_account_of(model, chain)
    if smart is None or smart.deployed:
        return model, cmds
    return model, [*cmds, *_follow(model, calls_id, 0)]


def _follow(model: Model, calls_id: str, polls: int) -> list[Cmd]:
    parsed = rules.parse_calls_id([calls_id])
    if isinstance(parsed, rules.CallsRefusal):
        return []
    network = _network(model, parsed[1])
    if network is None:
        return []
    return [_status_call(network, parsed[0], f"{DEPLOY_KEY}{polls}:{calls_id}")]


def _deploy_read(model: Model, msg: CallsStatusRead) -> Step:
    polls_text, _, calls_id = msg.key.removeprefix(DEPLOY_KEY).partition(":")
    parsed = rules.parse_calls_id([calls_id])
    if not polls_text.isdigit() or isinstance(parsed, rules.CallsRefusal):
        return model, []
    network = _network(model, parsed[1])
    smart = smart_account_of(model, network.id) if network is not None else None
    if network is None or smart is None or smart.deployed:
        return model, []  # signed out, or already read as deployed
    if msg.ok and msg.result is not None and msg.result.status != rules.PENDING:
        return model, [smart_account.read(model, (network.id,))]  # included: what the chain says now
    polls = int(polls_text) + 1
    if polls >= DEPLOY_POLLS:
        return model, []
    return model, [StartTimer(DEPLOY_KEY + calls_id, DEPLOY_POLL_MS, DeployStatusDue(calls_id, polls))]


def on_deploy_due(model: Model, msg: DeployStatusDue, now: int) -> Step:
    if not model.smart.owner:
        return model, []  # signed out meanwhile
    return model, _follow(model, msg.calls_id, msg.polls)


def on_status_read(model: Model, msg: CallsStatusRead, now: int) -> Step:
    if msg.key.startswith(VIEW_KEY):
        return _view_read(model, msg)
    if msg.key.startswith(DEPLOY_KEY):
        return _deploy_read(model, msg)
    request = model.embedded.request
    if request is None or request.eid != msg.key or not request.signing or request.method != STATUS:
        return model, []
    if not msg.ok or msg.result is None:
        return answer(model, request, code=INTERNAL_ERROR, message=msg.error or "The calls status could not be read")
    parsed = rules.parse_calls_id(json.loads(request.params))
    assert not isinstance(parsed, rules.CallsRefusal)  # checked before the read
    user_op_hash, chain_id = parsed
    return answer(model, request, result=status_answer(rules.calls_id(user_op_hash, chain_id), chain_id, msg.result))


def _view_read(model: Model, msg: CallsStatusRead) -> Step:
    shown = model.calls.shown
    if shown is None or msg.key != VIEW_KEY + shown.calls_id:
        return model, []
    if not msg.ok or msg.result is None:
        shown = replace(shown, reading=False, failed=True)
    else:
        receipt = msg.result.receipts[0] if msg.result.receipts else None
        shown = replace(shown, reading=False, failed=False, status=msg.result.status,
                        transaction_hash=receipt.transactionHash if receipt else "")
    model = replace(model, calls=CallsState(shown=shown))
    if shown.status in (None, rules.PENDING) and model.router.view == VIEW:
        return model, [StartTimer(REFRESH_TIMER, REFRESH_MS, CallsStatusDue())]
    return model, []


def _read_shown(model: Model) -> Step:
    shown = model.calls.shown
    if shown is None or shown.reading or model.router.view != VIEW:
        return model, []
    network = model.networks.get(shown.chain)
    if network is None:
        return model, []
    model = replace(model, calls=CallsState(shown=replace(shown, reading=True)))
    return model, [_status_call(network, "0x" + shown.calls_id[2:66], VIEW_KEY + shown.calls_id)]


def on_refresh(model: Model, msg: PressedRefreshCallsStatus, now: int) -> Step:
    return _read_shown(model)


def on_due(model: Model, msg: CallsStatusDue, now: int) -> Step:
    return _read_shown(model)


HANDLERS = (
    On(CallsStatusRead, on_status_read),
    On(PressedRefreshCallsStatus, on_refresh),
    On(CallsStatusDue, on_due),
    On(DeployStatusDue, on_deploy_due),
)
SLICE = Slice("calls", HANDLERS)
