"""EIP-5792 on the embedded smart account, through the host provider's `rpc` intent (issue 32
item 4): wallet_getCapabilities per chain, wallet_sendCalls refused with a typed error (nothing
shown, nothing signed) or shown as ONE approval listing each decoded call and answered `{id}`,
wallet_getCallsStatus from the bundler's receipt, wallet_showCallsStatus opening CallsStatus.
The smart accounts' read, the signer and the status read are stand-in services here; the real
ones run against the dev chain and the bundler in tests/aa."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from eth_abi.abi import encode
from eth_utils.crypto import keccak

from modalcore.chains.catalog import Token, catalog
from modalcore.core.cmds import Call
from modalcore.embedded.service import EmbeddedWallet
from modalcore.core.services import ServiceTable, serve
from modalcore.embedded.smart import owner_of
from modalcore.rules import calls as rules
from modalcore.services.domain.handles import (CALLS_STATUS, CHAIN_SIMULATE, EMBEDDED_SIGN, ESTIMATE_FEE, SMART_ACCOUNTS, CallsStatusArgs, CallsStatusFound,
                                        SignArgs, SmartAccountsArgs, SmartAccountsFound)
from modalcore.embedded.approval_tree import read
from modalcore.chains.catalog import SIMULATION_MS
from modalcore.server.approval import _page_body, tree_bytes
from modalcore.slices.embedded import ApprovalDecided
from modalcore_dev.devmail import LocalSmtpServer

from .world import EmailWorld

SMART = "0x00000000000000000000000000000000000A11cE"
CHAIN, OTHER = "eip155:31337", "eip155:31338"
TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
ROUTER = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0"
WETH = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
OP_HASH = "0x" + "ab" * 32
CALLS_ID = rules.calls_id(OP_HASH, 31337)
TX = "0x" + "cd" * 32
BLOCK = "0x" + "ef" * 32


def _selector(signature: str) -> str:
    return "0x" + keccak(text=signature)[:4].hex()


APPROVE = _selector("approve(address,uint256)") + encode(["address", "uint256"], [ROUTER, 5 * 10**18]).hex()
SWAP = _selector("swapExactTokensForETH(uint256,uint256,address[],address,uint256)") + encode(
    ["uint256", "uint256", "address[]", "address", "uint256"], [5 * 10**18, 1, [TOKEN, WETH], SMART, 2**40]).hex()


class Stand:
    def __init__(self, wallet: EmbeddedWallet) -> None:
        self.signed: list[dict[str, Any]] = []
        self.status_reads: list[dict[str, Any]] = []
        self.status: CallsStatusFound = {"status": 100, "receipts": []}

        async def accounts(ctx: Any, args: SmartAccountsArgs) -> SmartAccountsFound:
            owner = owner_of(wallet.vault, args.identity)
            assert owner is not None
            return {"owner": owner,
                    "accounts": [{"chain": c, "address": SMART, "deployed": False} for c in args.chains if c == CHAIN]}

        async def sign(ctx: Any, args: SignArgs) -> dict[str, str]:
            self.signed.append(args.model_dump())
            return {"result": CALLS_ID}

        async def status(ctx: Any, args: CallsStatusArgs) -> CallsStatusFound:
            self.status_reads.append(args.model_dump())
            return self.status

        self.services: ServiceTable = {SMART_ACCOUNTS: serve(SMART_ACCOUNTS, accounts),
                                       EMBEDDED_SIGN: serve(EMBEDDED_SIGN, sign),
                                       CALLS_STATUS: serve(CALLS_STATUS, status)}


def _world(wallet: EmbeddedWallet, smtp: LocalSmtpServer, *, stand: Stand | None = None,
           options: dict[str, Any] | None = None, email: str = "cal@example.com") -> tuple[EmailWorld, Stand]:
    stand = stand or Stand(wallet)
    known = catalog()
    token = Token(TOKEN, "DEMO", "Demo", 18)
    networks = {CHAIN: replace(known[CHAIN], smart_accounts=True, tokens=(token,), sponsored_projects=("test-project",)),
                OTHER: replace(known[OTHER], smart_accounts=False)}
    world = EmailWorld(wallet, smtp, services=stand.services, known_networks=networks,
                       options={"networks": [CHAIN, OTHER], **(options or {})})
    world.submit_email(email)
    world.type_code(world.code_for(email))
    world.settle_all()
    assert world.h.model.accounts.get("eip155").address == SMART
    return world, stand


def _rpc(world: EmailWorld, rid: str, method: str, params: list[Any]) -> dict[str, Any]:
    assert world.h.intent("host", "rpc", {"id": rid, "method": method, "params": params}) == "ok"
    world.settle_all()
    answer: dict[str, Any] = world.h.host_state("rpc")
    return answer


def _batch(**overrides: Any) -> dict[str, Any]:
    batch: dict[str, Any] = {"version": "2.0.0", "chainId": "0x7a69", "from": SMART, "atomicRequired": True,
                             "calls": [{"to": TOKEN, "data": APPROVE}, {"to": ROUTER, "data": SWAP, "value": "0x0"}]}
    batch.update(overrides)
    return batch


def test_rule_capabilities_say_atomic_and_paymaster_for_the_smart_account_only_on_its_chains(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, _ = _world(wallet, smtp)
    owner = world.h.model.smart.owner
    answer = _rpc(world, "c1", "wallet_getCapabilities", [SMART])
    assert answer == {"id": "c1", "ok": True, "result": {
        "0x7a69": {"atomic": {"status": "supported"}, "paymasterService": {"supported": True}}}}
    assert _rpc(world, "c2", "wallet_getCapabilities", [SMART, ["0x7a6a"]])["result"] == {}
    # another project, which the operator's policy does not sponsor: no paymaster service
    world.h.session.model = replace(world.h.model, project_id="unsponsored")
    assert _rpc(world, "c5", "wallet_getCapabilities", [SMART])["result"] == {
        "0x7a69": {"atomic": {"status": "supported"}, "paymasterService": {"supported": False}}}
    assert _rpc(world, "c3", "wallet_getCapabilities", [owner])["result"] == {
        "0x7a69": {"atomic": {"status": "unsupported"}}, "0x7a6a": {"atomic": {"status": "unsupported"}}}
    refused = _rpc(world, "c4", "wallet_getCapabilities", ["0x" + "12" * 20])
    assert (refused["ok"], refused["code"]) == (False, 4100)
    assert world.h.effects() == []


def test_rule_malformed_or_unsupported_calls_are_refused_typed_and_nothing_is_shown_or_signed(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, stand = _world(wallet, smtp)
    cases = [
        (_batch(calls=[{"to": TOKEN[2:], "data": APPROVE}]), -32602),  # behaviour.md §5: 0x-prefixed 'to'
        (_batch(calls=[{"to": TOKEN, "data": "0xzz"}]), -32602),
        (_batch(calls=[{"to": TOKEN, "value": "12"}]), -32602),
        (_batch(calls=[]), -32602),
        (_batch(calls=[{"to": TOKEN}] * (rules.MAX_CALLS + 1)), 5740),
        (_batch(chainId="0x7a6a"), 5710),  # a configured chain without smart accounts
        (_batch(chainId="0x1"), 5710),  # not configured
        (_batch(**{"from": "0x" + "12" * 20}), 4100),
        (_batch(id="mine"), 5720),
        (_batch(capabilities={"auxiliaryFunds": {"supported": True}}), 5700),
        (_batch(version="3.0"), -32602),
        ([_batch(), _batch()], -32602),
    ]
    for index, (batch, code) in enumerate(cases):
        params = batch if isinstance(batch, list) else [batch]
        answer = _rpc(world, f"m{index}", "wallet_sendCalls", params)
        assert (answer["ok"], answer["code"]) == (False, code), (index, answer)
        assert world.h.view != "ApproveTransaction" and world.h.model.embedded.request is None
    assert stand.signed == [] and world.h.effects() == []
    # a paymaster the engine's policy does not give this project: 5700; optional: no reason to refuse
    world.h.session.model = replace(world.h.model, project_id="unsponsored")
    refused = _rpc(world, "pm", "wallet_sendCalls", [_batch(capabilities={"paymasterService": {"url": "https://pm.example"}})])
    assert (refused["ok"], refused["code"]) == (False, 5700)
    _rpc(world, "pm2", "wallet_sendCalls", [_batch(capabilities={"paymasterService": {"url": "https://pm.example",
                                                                                          "optional": True}})])
    assert world.h.view == "ApproveTransaction"
    world.h.deliver(ApprovalDecided(world.h.model.embedded.request.eid, approve=False))  # type: ignore[union-attr]
    world.h.session.model = replace(world.h.model, project_id="test-project")
    # an unknown capability the app marked optional is no reason to refuse
    _rpc(world, "ok", "wallet_sendCalls", [_batch(capabilities={"auxiliaryFunds": {"optional": True}})])
    assert world.h.view == "ApproveTransaction"


def test_rule_the_eoa_cannot_batch(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, stand = _world(wallet, smtp)
    world.h.session.model = replace(world.h.model, smart=replace(world.h.model.smart, preferred="eoa"))
    answer = _rpc(world, "e1", "wallet_sendCalls", [_batch(**{"from": None})])
    assert (answer["ok"], answer["code"]) == (False, 5760)
    assert stand.signed == []


def test_rule_a_batch_is_one_approval_listing_each_decoded_call_then_one_signed_operation(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, stand = _world(wallet, smtp)
    assert world.h.intent("host", "rpc", {"id": "s1", "method": "wallet_sendCalls", "params": [_batch()]}) == "ok"
    assert world.h.view == "ApproveTransaction"
    request = world.h.model.embedded.request
    assert request is not None and request.chain == CHAIN
    page = _page_body(world.h.model, request.eid)
    assert "<h1>Send calls</h1>" in page
    for label, text in (("Calls", "2, in one operation: all or none"),
                        ("Call 1 to", f"DEMO ({TOKEN})"), ("Call 1 function", "approve(spender, amount)"),
                        ("Call 1 spender", ROUTER), ("Call 1 amount", "5000000000000000000 (5 DEMO)"),
                        ("Call 2 to", ROUTER),
                        ("Call 2 function", "swapExactTokensForETH(amountIn, amountOutMin, path, to, deadline)"),
                        ("Call 2 path", f"DEMO → {WETH}"), ("Call 2 to", SMART)):
        assert f"<dt>{label}</dt><dd>{text}</dd>" in page, label
    assert stand.signed == []
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    world.settle_all()
    assert len(stand.signed) == 1
    assert {k: stand.signed[0][k] for k in ("method", "chain", "account")} == {
        "method": "wallet_sendCalls", "chain": CHAIN, "account": SMART}
    assert world.h.host_state("rpc") == {"id": "s1", "ok": True, "result": {"id": CALLS_ID}}


def test_rule_calls_status_reads_the_bundler_and_answers_eip5792s_shape(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, stand = _world(wallet, smtp)
    pending = _rpc(world, "g1", "wallet_getCallsStatus", [CALLS_ID])
    assert pending == {"id": "g1", "ok": True, "result": {"version": "2.0.0", "id": CALLS_ID, "chainId": "0x7a69",
                                                          "status": 100, "atomic": True, "receipts": []}}
    assert stand.status_reads == [{"chain": CHAIN, "user_op_hash": OP_HASH}]
    receipt = {"logs": [{"address": TOKEN, "topics": ["0x" + "01" * 32], "data": "0x"}], "status": "0x1",
               "blockHash": BLOCK, "blockNumber": "0x10", "gasUsed": "0x5208", "transactionHash": TX}
    stand.status = {"status": 200, "receipts": [receipt]}
    done = _rpc(world, "g2", "wallet_getCallsStatus", [CALLS_ID])["result"]
    assert (done["status"], done["receipts"]) == (200, [receipt])
    for rid, params, code in (("g3", ["0x1234"], 5730), ("g4", [rules.calls_id(OP_HASH, 31338)], 5730),
                              ("g5", [], -32602)):
        answer = _rpc(world, rid, "wallet_getCallsStatus", params)
        assert (answer["ok"], answer["code"]) == (False, code), rid
    assert len(stand.status_reads) == 2


def test_rule_show_calls_status_opens_the_batch_in_the_modal_and_reads_it_until_it_settles(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, stand = _world(wallet, smtp)
    answer = _rpc(world, "v1", "wallet_showCallsStatus", [CALLS_ID])
    assert answer == {"id": "v1", "ok": True, "result": None}
    assert world.h.view == "CallsStatus" and world.h.model.modal.open
    assert world.h.node("calls-status/state").p["text"] == "Calls pending"
    stand.status = {"status": 200, "receipts": [{"logs": [], "status": "0x1", "blockHash": BLOCK,
                                                 "blockNumber": "0x10", "gasUsed": "0x5208", "transactionHash": TX}]}
    world.h.advance(3000)
    world.settle_all()
    assert world.h.node("calls-status/state").p["text"] == "Calls confirmed"
    assert len(stand.status_reads) == 2
    world.h.advance(30_000)
    world.settle_all()
    assert len(stand.status_reads) == 2  # settled: no more reads
    assert world.h.intent("calls-status/refresh", "press", {}) == "ok"
    world.settle_all()
    assert len(stand.status_reads) == 3
    assert not [c for c in world.h.cmds if isinstance(c, Call) and c.service == EMBEDDED_SIGN]


def test_rule_a_batch_is_simulated_from_the_smart_account_and_estimated_when_the_node_is_late(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    """Issue 43 item 1: a wallet_sendCalls batch's calls are simulated in order from the smart
    account; 1.5 s without an answer gives the outcome estimated from the call data."""
    world, _ = _world(wallet, smtp)
    assert world.h.intent("host", "rpc", {"id": "s1", "method": "wallet_sendCalls", "params": [_batch()]}) == "ok"
    world.settle_all()
    assert world.h.view == "ApproveTransaction"
    call = world.h.pending_calls(CHAIN_SIMULATE)[-1]
    assert call.args_data["account"] == SMART
    assert [c["to"] for c in call.args_data["calls"]] == [TOKEN, ROUTER]
    assert world.h.pending_calls(ESTIMATE_FEE) == []  # a UserOperation is not priced as an EOA's call
    world.h.advance(SIMULATION_MS)
    outcome = read(tree_bytes(world.h.model))["outcome"]
    assert outcome["status"] == "estimated"
    assert outcome["changes"] == ["\u22125 DEMO", "+0.000000000000000001 ETH",
                                  f"approves {ROUTER[:6].lower()}…{ROUTER[-4:].lower()} to spend 5 DEMO"]
    assert outcome["fee"] == "Fee unavailable"
