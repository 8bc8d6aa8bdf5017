"""A small JSON-RPC 2.0 client over httpx (behaviour.md §7 "Chain RPC")."""

from __future__ import annotations

from typing import Any

import httpx
from ...rules.texts import http_status

RPC_TIMEOUT_S = 10.0  # behaviour.md §9: RPC default time-out 10000 ms


class RpcCallError(RuntimeError):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


async def call(http: httpx.AsyncClient, url: str, method: str, params: list[object]) -> object:
    results = await batch(http, url, [(method, params)])
    return results[0]


async def _answers(http: httpx.AsyncClient, url: str, calls: list[tuple[str, list[object]]]) -> dict[Any, Any]:
    """Post the calls as one batch (ids 1..n); the answers by id. RpcCallError when the batch as
    a whole fails."""
    body = [
        {"jsonrpc": "2.0", "id": index + 1, "method": method, "params": params}
        for index, (method, params) in enumerate(calls)
    ]
    response = await http.post(url, json=body, timeout=RPC_TIMEOUT_S)
    if response.status_code != 200:
        raise RpcCallError(-32000, http_status(response.status_code))
    payload = response.json()
    if isinstance(payload, dict):  # some nodes answer a batch error as one object
        error = payload.get("error") or {}
        raise RpcCallError(int(error.get("code", -32603)), str(error.get("message", "bad response")))
    return {item.get("id"): item for item in payload if isinstance(item, dict)}


async def tolerant_batch(http: httpx.AsyncClient, url: str, calls: list[tuple[str, list[object]]]) -> list[Any]:
    """A batch whose failed calls give None (one bad token must not hide the rest); only a
    failure of the whole batch raises."""
    if not calls:
        return []
    by_id = await _answers(http, url, calls)
    return [(by_id.get(index + 1) or {}).get("result") for index in range(len(calls))]


async def batch(http: httpx.AsyncClient, url: str, calls: list[tuple[str, list[object]]]) -> list[Any]:
    """Send calls as one batch; results in the calls' order. Any error fails the batch."""
    by_id = await _answers(http, url, calls)
    results = []
    for index in range(len(calls)):
        item = by_id.get(index + 1)
        if item is None:
            raise RpcCallError(-32603, "missing response")
        if "error" in item:
            raise RpcCallError(int(item["error"].get("code", -32603)), str(item["error"].get("message", "")))
        results.append(item.get("result"))
    return results
