"""What a smart account did in a bundle (issue 32), for the self-hosted history: a UserOperation
from the account runs inside a bundler's `handleOps` transaction (from the bundler, to the
EntryPoint), so the account's ETH it sends is an internal transfer that no block shows. The
EntryPoint's `UserOperationEvent` (sender indexed) names the transaction; its `handleOps` input
holds the operation, whose `execute` / `executeBatch` call data says where the ETH went.

Only the EntryPoint v0.7 `handleOps(PackedUserOperation[], address)` and SimpleAccount's
`execute(address,uint256,bytes)` / `executeBatch(address[],uint256[],bytes[])` are read; anything
else is no native transfer (the operation's token transfers show through their logs anyway).
"""

from __future__ import annotations


from eth_abi.abi import decode
from eth_abi.exceptions import DecodingError
from eth_utils.crypto import keccak

USER_OPERATION_EVENT = "0x" + keccak(
    text="UserOperationEvent(bytes32,address,address,uint256,bool,uint256,uint256)").hex()
_PACKED_OP = "(address,uint256,bytes,bytes,bytes32,uint256,bytes32,bytes,bytes)"
HANDLE_OPS = keccak(text=f"handleOps({_PACKED_OP}[],address)")[:4]
EXECUTE = keccak(text="execute(address,uint256,bytes)")[:4]
EXECUTE_BATCH = keccak(text="executeBatch(address[],uint256[],bytes[])")[:4]
MAX_INPUT_BYTES = 1_000_000  # a bundle's input read at most this long


def _bytes(hex_text: object) -> bytes:
    if not isinstance(hex_text, str) or not hex_text.startswith("0x") or len(hex_text) > 2 + 2 * MAX_INPUT_BYTES:
        return b""
    try:
        return bytes.fromhex(hex_text[2:])
    except ValueError:
        return b""


def _calls(call_data: bytes) -> list[tuple[str, int, bytes]]:
    """(to, wei, data) of the account's calls in its execute / executeBatch call data."""
    try:
        if call_data[:4] == EXECUTE:
            to, value, data = decode(["address", "uint256", "bytes"], call_data[4:])
            return [(str(to).lower(), int(value), bytes(data))]
        if call_data[:4] == EXECUTE_BATCH:
            targets, values, datas = decode(["address[]", "uint256[]", "bytes[]"], call_data[4:])
            return [(str(to).lower(), int(value), bytes(data))
                    for to, value, data in zip(targets, values, datas, strict=False)]
    except (DecodingError, ValueError, OverflowError):
        return []
    return []


def account_calls(tx: dict[str, object], account: str) -> list[tuple[str, int, bytes]]:
    """(to, wei, data) of the calls `account` (lowercase) made by its operations in bundle `tx`."""
    data = _bytes(tx.get("input") or tx.get("data"))
    if data[:4] != HANDLE_OPS:
        return []
    try:
        ops, _ = decode([f"{_PACKED_OP}[]", "address"], data[4:])
    except (DecodingError, ValueError, OverflowError):
        return []
    return [call for op in ops if str(op[0]).lower() == account for call in _calls(bytes(op[3]))]


def native_sends(tx: dict[str, object], account: str) -> list[tuple[str, int]]:
    """(receiver, wei) of the ETH `account` (lowercase) sent by its operations in bundle `tx`."""
    return [(to, wei) for to, wei, _ in account_calls(tx, account) if wei > 0]


def succeeded(log: dict[str, object]) -> bool:
    """The operation's own outcome (UserOperationEvent's `success`: its second data word)."""
    data = _bytes(log.get("data"))
    return len(data) >= 64 and int.from_bytes(data[32:64], "big") == 1
