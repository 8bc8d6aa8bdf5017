"""ABI-encoded contract calls and reads over JSON-RPC `eth_call` (SPEC §7 "Chain RPC")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
from eth_abi.abi import decode, encode
from eth_utils.crypto import keccak

from .jsonrpc import call


def arg_types(signature: str) -> list[str]:
    inner = signature[signature.index("(") + 1 : signature.rindex(")")]
    return [t for t in inner.split(",") if t]


def call_data(signature: str, args: Sequence[Any] = ()) -> str:
    """`call_data('approve(address,uint256)', [spender, 5])` → 0x-prefixed hex calldata."""
    return "0x" + (keccak(text=signature)[:4] + encode(arg_types(signature), list(args))).hex()


async def eth_call(http: httpx.AsyncClient, rpc_url: str, to: str, signature: str,
                   args: Sequence[Any] = (), returns: Sequence[str] = ()) -> tuple[Any, ...]:
    """Read a contract at the latest block; decoded with `returns` (raises RpcCallError when
    the node answers an error, e.g. a revert with its reason)."""
    result = await call(http, rpc_url, "eth_call", [{"to": to, "data": call_data(signature, args)}, "latest"])
    raw = bytes.fromhex(str(result).removeprefix("0x"))
    return tuple(decode(list(returns), raw))
