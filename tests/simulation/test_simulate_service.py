"""`chain_simulate` (issue 43 items 1 and 4): the exact eth_simulateV1 request it sends, the
bounds on what it reads (size, logs, shape), a node without the method or too slow is a
ServiceError (the approval then shows the estimate), and on a real Anvil node the answer decodes
into the balance changes, the unlimited approval and the revert the visitor would see."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from eth_abi.abi import encode as abi_encode
from eth_utils.crypto import keccak

from modalcore.core.services import ServiceError
from modalcore.services.domain.shapes import SimulateArgs
from modalcore.services.backend.simulate import MAX_ANSWER_BYTES, TIMEOUT_S, simulate
from modalcore.simulation.outcome import REVERTS, Asset, CallResult, Known, Log, Simulation, TxCall, simulated
from modalcore_dev.devchain.anvil import start_anvil
from modalcore_dev.devchain.nodes import CHAIN_DIR, DevNode

ME = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
ARGS = SimulateArgs.model_validate({"rpc_url": "http://node.test", "account": ME,
                                    "calls": [{"to": TO, "value": "0x3782dace9d900000", "data": "0x"}]})


def _run(handler: object, args: SimulateArgs = ARGS) -> object:
    async def go() -> object:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:  # type: ignore[arg-type]
            return await simulate(http, args)
    return asyncio.run(go())


def test_rule_it_asks_eth_simulateV1_with_traced_transfers_from_the_account() -> None:
    seen: list[object] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": 1, "result": [
            {"baseFeePerGas": "0x3b9aca00", "calls": [{"status": "0x1", "gasUsed": "0x5208", "logs": []}]}]})

    assert _run(handler) == {"calls": [{"ok": True, "gas_used": 21000, "logs": []}], "base_fee": 10**9,
                             "insufficient": False}
    assert seen == [{"jsonrpc": "2.0", "id": 1, "method": "eth_simulateV1", "params": [
        {"blockStateCalls": [{"calls": [{"from": ME, "to": TO, "value": "0x3782dace9d900000", "data": "0x"}]}],
         "traceTransfers": True, "validation": False}, "latest"]}]


def test_rule_a_node_without_the_method_is_a_service_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": 1,
                                         "error": {"code": -32601, "message": "Method eth_simulateV1 not found"}})
    with pytest.raises(ServiceError, match="does not simulate"):
        _run(handler)


@pytest.mark.parametrize("error", [{"code": -38014, "message": "Insufficient funds to pay for gas fees and value"},
                                   {"code": -32003, "message": "Insufficient funds for gas * price + value"}])
def test_rule_a_node_saying_the_account_cannot_pay_is_an_answer_not_a_failure(error: dict[str, object]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": 1, "error": error})
    assert _run(handler) == {"calls": [], "base_fee": 0, "insufficient": True}


def test_rule_an_answer_longer_than_the_bound_is_refused_unread() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b" " * (MAX_ANSWER_BYTES + 1))
    with pytest.raises(ServiceError, match="too large"):
        _run(handler)


def test_rule_a_node_slower_than_1_5_s_is_a_service_error() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(TIMEOUT_S + 5)
        return httpx.Response(200, json={})
    with pytest.raises(ServiceError, match="unavailable"):
        _run(handler)


def test_rule_an_answer_of_another_shape_or_call_count_is_refused() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": 1, "result": [{"calls": []}]})
    with pytest.raises(ServiceError, match="does not fit"):
        _run(handler)


def test_logs_are_cut_to_their_first_word_and_counted() -> None:
    log = {"address": TO, "topics": ["0x" + "11" * 32] * 6, "data": "0x" + "22" * 40}

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": 1, "result": [
            {"calls": [{"status": "0x1", "gasUsed": "0x1", "logs": [log] * 300}]}]})

    result = _run(handler)
    assert isinstance(result, dict)
    logs = result["calls"][0]["logs"]
    assert len(logs) == 256 and len(logs[0]["topics"]) == 4 and len(logs[0]["data"]) == 66


# ----- on a real node (Anvil, chain/package.json)

@pytest.fixture(scope="module")
def anvil() -> Iterator[DevNode]:
    node = start_anvil()
    yield node
    node.stop()


def _rpc(node: DevNode, method: str, params: list[object]) -> object:
    answer = httpx.post(node.rpc_url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, timeout=10)
    return answer.json()["result"]


def _mined(node: DevNode, tx: object) -> dict[str, object]:
    """The receipt of `tx`: anvil's automine answers eth_sendTransaction before the block is
    sealed, so a loaded machine can ask for the receipt a moment too early (polled, at most 30 s)."""
    for _ in range(300):
        receipt = _rpc(node, "eth_getTransactionReceipt", [tx])
        if isinstance(receipt, dict):
            return receipt
        time.sleep(0.1)
    raise AssertionError(f"{tx} was not mined within 30 s")


def _token(node: DevNode) -> str:
    artifact = json.loads((CHAIN_DIR / "node_modules/@openzeppelin/contracts/build/contracts/"
                           "ERC20PresetFixedSupply.json").read_text())
    data = artifact["bytecode"] + abi_encode(["string", "string", "uint256", "address"],
                                             ["Demo", "DEMO", 100 * 10**18, ME]).hex()
    tx = _rpc(node, "eth_sendTransaction", [{"from": ME, "data": data, "gas": hex(3_000_000)}])
    receipt = _mined(node, tx)
    return str(receipt["contractAddress"]).lower()


def _call(sig: str, values: list[object]) -> str:
    types = sig[sig.index("(") + 1:-1].split(",")
    return "0x" + keccak(text=sig)[:4].hex() + abi_encode(types, values).hex()


def _raw(node: DevNode, calls: list[TxCall], account: str = ME) -> object:
    args = SimulateArgs.model_validate({"rpc_url": node.rpc_url, "account": account, "calls": [
        {"to": c.to, "value": hex(c.value), "data": c.data} for c in calls]})

    async def go() -> object:
        async with httpx.AsyncClient() as http:
            return await simulate(http, args)

    return asyncio.run(go())


def _sim(node: DevNode, calls: list[TxCall]) -> Simulation:
    raw = _raw(node, calls)
    assert isinstance(raw, dict)
    return Simulation(tuple(CallResult(c["ok"], c["gas_used"], tuple(Log(g["address"], tuple(g["topics"]), g["data"])
                                                                     for g in c["logs"])) for c in raw["calls"]),
                      raw["base_fee"])


@pytest.mark.chain
def test_anvil_simulates_a_send_an_unlimited_approval_and_a_token_transfer(anvil: DevNode) -> None:
    assert Path(CHAIN_DIR / "package.json").read_text().count("@foundry-rs/anvil") == 1
    token = _token(anvil)
    known = Known(Asset("ETH", 18), {token: Asset("DEMO", 18)}, {TO.lower(): "Uniswap V2 Router"})
    calls = [TxCall(TO, 25 * 10**16, "0x"),
             TxCall(token, 0, _call("approve(address,uint256)", [TO, 2**256 - 1])),
             TxCall(token, 0, _call("transfer(address,uint256)", [TO, 15 * 10**17]))]
    outcome = simulated(_sim(anvil, calls), ME, calls, known)
    assert outcome.status == "simulated"
    assert outcome.changes == ("\u22120.25 ETH", "\u22121.5 DEMO", "approves Uniswap V2 Router to spend unlimited DEMO")
    assert outcome.warnings == ("This approves an unlimited allowance of DEMO",)
    assert outcome.fee.startswith("≈ ") and outcome.fee.endswith(" ETH")


@pytest.mark.chain
def test_anvil_simulates_a_revert(anvil: DevNode) -> None:
    token = _token(anvil)
    calls = [TxCall(token, 0, _call("transfer(address,uint256)", [TO, 10**30]))]
    outcome = simulated(_sim(anvil, calls), ME, calls, Known(Asset("ETH", 18), {}, {}))
    assert outcome.warnings == (REVERTS,)


@pytest.mark.chain
def test_anvil_says_an_account_without_funds_cannot_pay(anvil: DevNode) -> None:
    assert _raw(anvil, [TxCall(TO, 25 * 10**16, "0x")], account="0x" + "12" * 20) == {
        "calls": [], "base_fee": 0, "insufficient": True}
