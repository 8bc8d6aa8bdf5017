"""Solana balances for the balances slice, in the shape service `balances` returns for eip155:
`{"native": lamports, "tokens": {mint: raw amount}}` (getBalance + getTokenAccountsByOwner)."""

from __future__ import annotations

import httpx

from ..domain.shapes import BalancesResult
from .solana_rpc import SolanaRpc


async def fetch_solana_balances(
    http: httpx.AsyncClient, *, rpc_url: str, address: str, tokens: list[str]
) -> BalancesResult:
    rpc = SolanaRpc(http, rpc_url)
    native = await rpc.balance(address)
    held = await rpc.token_balances(address) if tokens else {}
    return {"native": str(native), "tokens": {mint: str(held.get(mint, 0)) for mint in tokens}}
