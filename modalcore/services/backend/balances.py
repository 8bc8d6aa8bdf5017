"""The self-hosted balance provider: eth_getBalance and ERC-20 balanceOf in one JSON-RPC batch."""

from __future__ import annotations


import httpx

from .jsonrpc import batch
from ..domain.shapes import BalancesResult

BALANCE_OF = "0x70a08231"  # balanceOf(address)


def balance_of_data(owner: str) -> str:
    return BALANCE_OF + owner.lower().removeprefix("0x").rjust(64, "0")


async def fetch_balances(
    http: httpx.AsyncClient, *, rpc_url: str, address: str, tokens: list[str]
) -> BalancesResult:
    """{"native": wei as a decimal string, "tokens": {token address: raw balance string}}."""
    calls: list[tuple[str, list[object]]] = [("eth_getBalance", [address, "latest"])]
    calls += [("eth_call", [{"to": token, "data": balance_of_data(address)}, "latest"]) for token in tokens]
    results = await batch(http, rpc_url, calls)
    native = int(results[0], 16)
    raw: dict[str, str] = {}
    for token, result in zip(tokens, results[1:], strict=True):
        raw[token] = str(int(result, 16)) if result not in (None, "0x") else "0"
    return {"native": str(native), "tokens": raw}
