"""ABI-encoded contract calls and reads over JSON-RPC `eth_call` (behaviour.md §7 "Chain RPC")."""

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


def call_data(signature: str, args: Sequence[object] = ()) -> str:
    """`call_data('approve(address,uint256)', [spender, 5])` → 0x-prefixed hex calldata."""
    return "0x" + (keccak(text=signature)[:4] + encode(arg_types(signature), list(args))).hex()


async def eth_call(http: httpx.AsyncClient, rpc_url: str, to: str, signature: str,
                   args: Sequence[object] = (), returns: Sequence[str] = ()) -> tuple[Any, ...]:
    """Read a contract at the latest block; decoded with `returns` (raises RpcCallError when
    the node answers an error, e.g. a revert with its reason)."""
    result = await call(http, rpc_url, "eth_call", [{"to": to, "data": call_data(signature, args)}, "latest"])
    raw = bytes.fromhex(str(result).removeprefix("0x"))
    return tuple(decode(list(returns), raw))


def decode_string(raw: str | None) -> str | None:
    """An ABI-encoded `string` return (or a bytes32 one, older tokens' `name()`); None when
    empty or not text."""
    if not raw or raw == "0x":
        return None
    data = bytes.fromhex(raw.removeprefix("0x"))
    try:
        if len(data) >= 64:
            offset = int.from_bytes(data[:32], "big")
            length = int.from_bytes(data[offset : offset + 32], "big")
            return data[offset + 32 : offset + 32 + length].decode("utf-8")
        if len(data) == 32:  # bytes32 names (older tokens)
            return data.rstrip(b"\0").decode("utf-8")
    except (UnicodeDecodeError, ValueError):
        return None
    return None
