"""EIP-1193 and JSON-RPC error codes (behaviour.md §8, "RPC codes")."""

from __future__ import annotations

from dataclasses import dataclass
from .texts import UNKNOWN_ERROR

NAMED = {
    -32700: "Parse error",
    -32600: "Invalid request",
    -32601: "Method not found",
    -32602: "Invalid params",
    -32603: "Internal error",
    -32000: "Server error",
    -32001: "Resource not found",
    -32002: "Resource unavailable",
    -32003: "Transaction rejected",
    -32004: "Method not supported",
    -32005: "Limit exceeded",
    -32006: "JSON-RPC version not supported",
    4001: "User rejected the request",
    4100: "Unauthorized",
    4200: "Unsupported method",
    4900: "Disconnected",
    4901: "Chain disconnected",
    4902: "Unrecognized chain",
}

NODE_MESSAGES = (
    ("insufficient funds", "Insufficient funds for gas and value"),
    ("nonce too low", "Nonce too low: another transaction was sent from this account"),
    ("nonce too high", "Nonce too high"),
    ("max fee per gas less than block base fee", "Fee cap is below the current base fee"),
    ("fee cap", "Fee cap is too low"),
    ("intrinsic gas too low", "Gas limit is too low"),
    ("out of gas", "The transaction ran out of gas"),
    ("gas required exceeds allowance", "Gas required exceeds the gas limit"),
    # Uniswap V2 router revert reasons (swaps), before the generic revert
    ("insufficient_output_amount", "The price moved beyond the slippage tolerance"),
    ("excessive_input_amount", "The price moved beyond the slippage tolerance"),
    ("uniswapv2router: expired", "The swap deadline passed before it was mined"),
    ("insufficient_liquidity", "Insufficient liquidity"),
    ("transfer_from_failed", "The token transfer failed: check the allowance and the balance"),
    ("execution reverted", "The transaction was reverted"),
    ("reverted", "The transaction was reverted"),
)


@dataclass(frozen=True)
class RpcError:
    code: int
    name: str
    message: str
    user_rejected: bool


def is_user_rejection(code: int) -> bool:
    return code == 4001 or code == 5000 or 5700 <= code <= 5760


def classify(code: int, message: str = "") -> RpcError:
    rejected = is_user_rejection(code)
    if rejected:
        name = "User rejected the request"
    elif code in NAMED:
        name = NAMED[code]
    elif -32099 <= code <= -32000:
        name = "Server error"
    else:
        name = UNKNOWN_ERROR
    return RpcError(code, name, readable(message) or name, rejected)


def readable(message: str) -> str:
    lowered = message.lower()
    for needle, text in NODE_MESSAGES:
        if needle in lowered:
            return text
    return message
