"""`chain_simulate` (issue 43 item 1): what an approval would execute, simulated by the node with
`eth_simulateV1` (geth, reth, Nethermind and Anvil answer it), ETH transfers traced as logs.

Bounded (issue 43 item 4): the whole exchange takes at most `TIMEOUT_S`; an answer longer than
`MAX_ANSWER_BYTES` is refused unread; at most `SIMULATED_LOGS` logs are kept, each cut to its
address, at most four topics and its first 32-byte word. Anything else (no such method, an
error, a shape that does not fit) is a `ServiceError`: the approval then shows the outcome
estimated from the call data, or unavailable (flows/simulation.py), never "no changes".
"""

from __future__ import annotations

import asyncio
import json
import re

import httpx

from ...core.services import ServiceError
from ..domain.shapes import SIMULATED_LOGS, SimulateArgs, SimulatedCall, SimulatedLog, SimulateResult

TIMEOUT_S = 1.5  # issue 43: a simulation never blocks an approval longer
MAX_ANSWER_BYTES = 256 * 1024
METHOD = "eth_simulateV1"
# the account cannot pay the value and the fee: the execution-apis code, and Anvil's
INSUFFICIENT_CODES = (-38014, -32003)
_HEX = re.compile(r"^0x[0-9a-fA-F]*$")
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
_TOPIC = re.compile(r"^0x[0-9a-fA-F]{64}$")


def request_body(args: SimulateArgs) -> dict[str, object]:
    """The JSON-RPC request: one block of the calls from the account, transfers traced, no
    balance or nonce validation (a simulation of what is asked, not of whether it can be paid)."""
    calls = [{"from": args.account, **({"to": c.to} if c.to else {}), "value": c.value, "data": c.data}
             for c in args.calls]
    return {"jsonrpc": "2.0", "id": 1, "method": METHOD,
            "params": [{"blockStateCalls": [{"calls": calls}], "traceTransfers": True, "validation": False},
                       "latest"]}


async def _post(http: httpx.AsyncClient, url: str, body: dict[str, object]) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async with http.stream("POST", url, json=body, timeout=TIMEOUT_S) as response:
        if response.status_code != 200:
            raise ServiceError(f"the node answered HTTP {response.status_code}")
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                raise ServiceError("the simulation's answer is too large")
            chunks.append(chunk)
    return b"".join(chunks)


def _quantity(value: object) -> int:
    if not isinstance(value, str) or not _HEX.match(value) or len(value) > 66:
        raise ServiceError("the simulation's answer does not fit")
    return int(value[2:] or "0", 16)


def _logs(raw: object, room: int) -> list[SimulatedLog]:
    if not isinstance(raw, list):
        raise ServiceError("the simulation's answer does not fit")
    logs: list[SimulatedLog] = []
    for item in raw[:room]:
        if not isinstance(item, dict):
            raise ServiceError("the simulation's answer does not fit")
        address, topics, data = item.get("address"), item.get("topics"), item.get("data")
        if (not isinstance(address, str) or not _ADDRESS.match(address) or not isinstance(topics, list)
                or not isinstance(data, str) or not _HEX.match(data[:66])):
            raise ServiceError("the simulation's answer does not fit")
        kept = [t for t in topics[:4] if isinstance(t, str) and _TOPIC.match(t)]
        logs.append({"address": address.lower(), "topics": [t.lower() for t in kept], "data": data[:66]})
    return logs


def parse(payload: object, count: int) -> SimulateResult:
    """The bounded result of an eth_simulateV1 answer for `count` calls, or ServiceError."""
    if not isinstance(payload, dict):
        raise ServiceError("the simulation's answer does not fit")
    error = payload.get("error")
    if error is not None:
        code = error.get("code") if isinstance(error, dict) else None
        message = str(error.get("message", "")).lower() if isinstance(error, dict) else ""
        if code in INSUFFICIENT_CODES or "insufficient funds" in message[:200]:
            return {"calls": [], "base_fee": 0, "insufficient": True}
        raise ServiceError("the node does not simulate" if code == -32601 else "the simulation failed")
    blocks = payload.get("result")
    if not isinstance(blocks, list) or len(blocks) != 1 or not isinstance(blocks[0], dict):
        raise ServiceError("the simulation's answer does not fit")
    raw_calls = blocks[0].get("calls")
    if not isinstance(raw_calls, list) or len(raw_calls) != count:
        raise ServiceError("the simulation's answer does not fit")
    calls: list[SimulatedCall] = []
    room = SIMULATED_LOGS
    for raw in raw_calls:
        if not isinstance(raw, dict):
            raise ServiceError("the simulation's answer does not fit")
        logs = _logs(raw.get("logs", []), room)
        room -= len(logs)
        calls.append({"ok": _quantity(raw.get("status")) == 1, "gas_used": _quantity(raw.get("gasUsed")),
                      "logs": logs})
    return {"calls": calls, "base_fee": _quantity(blocks[0].get("baseFeePerGas", "0x0")), "insufficient": False}


async def simulate(http: httpx.AsyncClient, args: SimulateArgs) -> SimulateResult:
    try:
        async with asyncio.timeout(TIMEOUT_S):
            data = await _post(http, args.rpc_url, request_body(args))
    except (httpx.HTTPError, TimeoutError):
        raise ServiceError("the simulation is unavailable") from None
    try:
        payload = json.loads(data)
    except ValueError:
        raise ServiceError("the simulation's answer is not JSON") from None
    return parse(payload, len(args.calls))
