"""Sending tokens on EVM chains (behaviour.md §7 "Chain RPC"): the network fee estimate the preview
shows (eth_estimateGas + eth_gasPrice), and for a token whether the simulated transfer succeeds.
The transaction itself is built in modalcore/services/domain/transfer.py.
"""

from __future__ import annotations

import httpx

from .jsonrpc import batch
from ..domain.shapes import FeeResult
from ..domain.transfer import transfer_accepted


async def estimate_fee(
    http: httpx.AsyncClient, *, rpc_url: str, tx: dict[str, str], token: str | None = None
) -> FeeResult:
    """{"gas", "gas_price", "fee"} as decimal strings (wei); with `token`, also
    "transfer_ok": whether the simulated transfer succeeded (eth_call)."""
    calls: list[tuple[str, list[object]]] = [("eth_estimateGas", [tx]), ("eth_gasPrice", [])]
    if token:
        calls.append(("eth_call", [tx, "latest"]))
    results = await batch(http, rpc_url, calls)
    gas = int(results[0], 16)
    price = int(results[1], 16)
    out: FeeResult = {"gas": str(gas), "gas_price": str(price), "fee": str(gas * price)}
    if token:
        out["transfer_ok"] = transfer_accepted(token, str(results[2] or "0x"))
    return out
