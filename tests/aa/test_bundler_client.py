"""The bundler client (modalcore/aa/bundler.py) against a stand-in that records what it is sent:
the exact JSON-RPC requests, and each way an answer can fail as a typed BundlerError."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from modalcore.aa.bundler import BundlerClient, BundlerError
from modalcore.aa.userop import ENTRY_POINT_V07, UserOperation

SENDER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
HASH = "0x" + "ab" * 32
URL = "http://bundler.invalid/rpc"


def _client(answer: Callable[[dict[str, Any]], httpx.Response], seen: list[dict[str, Any]]) -> httpx.AsyncClient:
    def handle(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append({"url": str(request.url), "method": request.method, "body": body})
        return answer(body)
    return httpx.AsyncClient(transport=httpx.MockTransport(handle))


def _result(result: Any) -> Callable[[dict[str, Any]], httpx.Response]:
    return lambda body: httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": result})


OP = UserOperation(sender=SENDER, nonce=1, call_data=b"\x12", call_gas_limit=5, verification_gas_limit=6,
                   pre_verification_gas=7, max_fee_per_gas=8, max_priority_fee_per_gas=9)


async def test_it_sends_the_erc4337_requests_as_json_rpc() -> None:
    seen: list[dict[str, Any]] = []
    answers = iter([[ENTRY_POINT_V07], {"preVerificationGas": "0x1", "verificationGasLimit": "0x2", "callGasLimit": "0x3"},
                    HASH, None, None])
    async with _client(lambda body: _result(next(answers))(body), seen) as http:
        client = BundlerClient(http, URL)
        assert await client.supported_entry_points() == [ENTRY_POINT_V07]
        gas = await client.estimate_user_operation_gas(OP, ENTRY_POINT_V07)
        assert (gas.pre_verification_gas, gas.verification_gas_limit, gas.call_gas_limit) == (1, 2, 3)
        assert await client.send_user_operation(OP, ENTRY_POINT_V07) == HASH
        assert await client.get_user_operation_receipt(HASH) is None
        assert await client.get_user_operation_by_hash(HASH) is None
    rpc_op = {"sender": SENDER, "nonce": "0x1", "callData": "0x12", "callGasLimit": "0x5",
              "verificationGasLimit": "0x6", "preVerificationGas": "0x7", "maxFeePerGas": "0x8",
              "maxPriorityFeePerGas": "0x9", "signature": "0x" + OP.signature.hex()}
    assert [(s["url"], s["method"]) for s in seen] == [(URL, "POST")] * 5
    assert [s["body"] for s in seen] == [
        {"jsonrpc": "2.0", "id": 1, "method": "eth_supportedEntryPoints", "params": []},
        {"jsonrpc": "2.0", "id": 2, "method": "eth_estimateUserOperationGas", "params": [rpc_op, ENTRY_POINT_V07]},
        {"jsonrpc": "2.0", "id": 3, "method": "eth_sendUserOperation", "params": [rpc_op, ENTRY_POINT_V07]},
        {"jsonrpc": "2.0", "id": 4, "method": "eth_getUserOperationReceipt", "params": [HASH]},
        {"jsonrpc": "2.0", "id": 5, "method": "eth_getUserOperationByHash", "params": [HASH]},
    ]


async def test_a_receipt_gives_the_transaction_and_success() -> None:
    receipt = {"userOpHash": HASH, "sender": SENDER, "success": False, "actualGasUsed": "0x10",
               "actualGasCost": "0x20", "paymaster": "0x" + "00" * 20, "nonce": "0x0", "logs": [], "reason": "0x",
               "receipt": {"transactionHash": "0x" + "cd" * 32, "blockNumber": "0x7", "gasUsed": "0x30"}}
    async with _client(_result(receipt), []) as http:
        got = await BundlerClient(http, URL).get_user_operation_receipt(HASH)
    assert got is not None
    assert (got.success, got.transaction_hash, got.block_number, got.actual_gas_cost, got.paymaster,
            got.transaction_gas_used) == (False, "0x" + "cd" * 32, 7, 32, None, 48)


def _error(code: int) -> Callable[[dict[str, Any]], httpx.Response]:
    return lambda body: httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"],
                                                  "error": {"code": code, "message": "AA21 didn't pay prefund"}})


def _raise(error: Exception) -> Callable[[dict[str, Any]], httpx.Response]:
    def answer(body: dict[str, Any]) -> httpx.Response:
        raise error
    return answer


@pytest.mark.parametrize(("answer", "reason", "kind", "code"), [
    (_error(-32500), "rpc_error", "rejected", -32500),
    (lambda body: httpx.Response(502, text="bad gateway"), "http_status", "upstream", 502),
    (lambda body: httpx.Response(200, text="not json"), "malformed_response", "upstream", None),
    (lambda body: httpx.Response(200, json={"jsonrpc": "2.0", "id": 999, "result": HASH}), "malformed_response", "upstream", None),
    (_result("0x1234"), "malformed_response", "upstream", None),
    (lambda body: httpx.Response(200, content=b"[" + b"1," * 200_000 + b"1]"), "too_large", "upstream", None),
    (_raise(httpx.ConnectError("refused")), "unreachable", "upstream", None),
    (_raise(httpx.ReadTimeout("slow")), "timeout", "timeout", None),
])
async def test_a_failed_answer_is_a_typed_error(answer: Callable[[dict[str, Any]], httpx.Response], reason: str,
                                                kind: str, code: int | None) -> None:
    async with _client(answer, []) as http:
        with pytest.raises(BundlerError) as caught:
            await BundlerClient(http, URL).send_user_operation(OP, ENTRY_POINT_V07)
    assert (caught.value.reason, caught.value.kind, caught.value.code, caught.value.method) == (
        reason, kind, code, "eth_sendUserOperation")


async def test_a_lookup_returns_the_operation() -> None:
    found = {"userOperation": OP.to_rpc(), "entryPoint": ENTRY_POINT_V07, "transactionHash": HASH,
             "blockNumber": "0x2", "blockHash": HASH}
    async with _client(_result(found), []) as http:
        got = await BundlerClient(http, URL).get_user_operation_by_hash(HASH)
    assert got is not None and (got.user_operation, got.transaction_hash, got.block_number) == (OP, HASH, 2)
