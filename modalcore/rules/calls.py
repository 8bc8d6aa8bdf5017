"""EIP-5792 (Wallet Call API, Final, request version 2.0.0) as the embedded smart account answers
it (issue 32 item 4): what a `wallet_sendCalls` / `wallet_getCallsStatus` / `wallet_getCapabilities`
request must look like, the calls id, and the typed refusals. Pure: params in, a value or a
`CallsRefusal` out; a refused request changes nothing and sends nothing.

Shape (EIP-5792 2.0.0, as viem 2.57 sends it): `wallet_sendCalls [{version, id?, from?, chainId,
atomicRequired, calls: [{to, value?, data?, capabilities?}], capabilities?}]` returns `{id}`.
Version "1.0" (viem before 2.30, no `atomicRequired`) is accepted too: a batch of one
UserOperation is atomic either way. Every call needs a 0x-prefixed 20-byte `to` (behaviour.md §5; AppKit's
W3mFrameSchema WalletSendCallsRequest requires `to` starting with 0x).

The calls id is the UserOperation's hash followed by the chain id as 32 bytes (0x + 128 hex), so
`wallet_getCallsStatus` finds the chain and the bundler again from the id alone, after a reload.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

VERSIONS: Final = ("2.0.0", "1.0")
MAX_CALLS: Final = 10  # one approval lists each call; more is 5740 (batch too large)
MAX_DATA_HEX: Final = 16_384  # hex characters of one call's data (8 KiB); the frame bounds the rest
MAX_VALUE: Final = 2**256 - 1
MAX_CAPABILITIES: Final = 8
MAX_LOGS: Final = 64  # logs of one receipt wallet_getCallsStatus relays
MAX_TOPICS: Final = 4
# capabilities this wallet knows in a request: atomic batching is what it always does, its own
# verifying paymaster sponsors where the operator's policy allows (an app's EIP-7677 paymaster
# URL is not called: the engine's paymaster is the one the account trusts)
KNOWN_CAPABILITIES: Final = frozenset({"paymasterService", "atomic"})

# EIP-5792 error codes
UNSUPPORTED_CAPABILITY: Final = 5700
UNSUPPORTED_CHAIN: Final = 5710
DUPLICATE_ID: Final = 5720
UNKNOWN_BUNDLE: Final = 5730
BATCH_TOO_LARGE: Final = 5740
ATOMICITY_UNSUPPORTED: Final = 5760
# EIP-1193 / JSON-RPC
INVALID_PARAMS: Final = -32602
UNAUTHORIZED: Final = 4100

# wallet_getCallsStatus status codes
PENDING: Final = 100
CONFIRMED: Final = 200
OFFCHAIN_FAILURE: Final = 400
REVERTED: Final = 500

_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
_HEX = re.compile(r"^0x(?:[0-9a-fA-F]{2})*$")
_QUANTITY = re.compile(r"^0x(?:0|[1-9a-fA-F][0-9a-fA-F]{0,63})$")
_CHAIN_ID = re.compile(r"^0x[1-9a-fA-F][0-9a-fA-F]{0,15}$")
_CALLS_ID = re.compile(r"^0x[0-9a-fA-F]{128}$")


@dataclass(frozen=True)
class CallsRefusal:
    """Why a request is refused: an EIP-5792 or EIP-1193 code and the message the app gets."""

    code: int
    message: str


@dataclass(frozen=True)
class Call:
    to: str  # 0x + 40 hex, as sent
    value: int
    data: str  # 0x-prefixed hex ("0x" when none)


@dataclass(frozen=True)
class CallBatch:
    chain_id: int
    sender: str  # "" when the app left `from` out
    calls: tuple[Call, ...]
    version: str
    paymaster_required: bool = False  # the app asked for paymasterService, not as optional


NO_ADDRESS: Final = "0x" + "0" * 40


def is_chain_id(value: object) -> bool:
    """A 0x-prefixed EIP-155 chain id without leading zeros (EIP-5792's chainId)."""
    return isinstance(value, str) and bool(_CHAIN_ID.match(value))


def _refuse(message: str, code: int = INVALID_PARAMS) -> CallsRefusal:
    return CallsRefusal(code, message)


def _call(item: object, index: int) -> Call | CallsRefusal:
    if not isinstance(item, dict):
        return _refuse(f"calls[{index}] must be an object")
    to = item.get("to")
    if not isinstance(to, str) or not _ADDRESS.match(to):  # behaviour.md §5
        return _refuse(f"calls[{index}].to must be a 0x-prefixed address")
    value = item.get("value", "0x0")
    if value is None:
        value = "0x0"
    if not isinstance(value, str) or not _QUANTITY.match(value):
        return _refuse(f"calls[{index}].value must be a hex quantity")
    data = item.get("data", "0x")
    if data is None:
        data = "0x"
    if not isinstance(data, str) or len(data) > MAX_DATA_HEX + 2 or not _HEX.match(data):
        return _refuse(f"calls[{index}].data must be 0x-prefixed hex of at most {MAX_DATA_HEX // 2} bytes")
    capabilities = item.get("capabilities")
    if capabilities is not None:
        refusal = _capabilities(capabilities)
        if refusal is not None:
            return refusal
    return Call(to, int(value, 16), data.lower())


def _capabilities(capabilities: object) -> CallsRefusal | None:
    """Unknown capabilities are fine when the app marked them optional (EIP-5792); otherwise
    5700."""
    if not isinstance(capabilities, dict) or len(capabilities) > MAX_CAPABILITIES:
        return _refuse("capabilities must be an object")
    for name, value in capabilities.items():
        if name in KNOWN_CAPABILITIES:
            continue
        if not (isinstance(value, dict) and value.get("optional") is True):
            return _refuse(f"Unsupported non-optional capability: {str(name)[:64]}", UNSUPPORTED_CAPABILITY)
    return None


def parse_send_calls(params: object, account: str) -> CallBatch | CallsRefusal:
    """`wallet_sendCalls` params for the account `account` (0x address), or the refusal."""
    if not isinstance(params, list) or len(params) != 1 or not isinstance(params[0], dict):
        return _refuse("wallet_sendCalls takes one request object")
    request = params[0]
    version = request.get("version", "2.0.0")
    if version not in VERSIONS:
        return _refuse(f"Unsupported version: {str(version)[:16]}")
    chain = request.get("chainId")
    if not isinstance(chain, str) or not _CHAIN_ID.match(chain):
        return _refuse("chainId must be a 0x-prefixed chain id")
    sender = request.get("from")
    if sender is not None and (not isinstance(sender, str) or not _ADDRESS.match(sender)):
        return _refuse("from must be a 0x-prefixed address")
    if sender is not None and sender.lower() != account.lower():
        return _refuse("from is not this wallet's account", UNAUTHORIZED)
    if request.get("id") is not None:  # the wallet picks the id (its UserOperation's hash)
        return _refuse("This wallet chooses the calls id", DUPLICATE_ID)
    calls = request.get("calls")
    if not isinstance(calls, list) or not calls:
        return _refuse("calls must be a non-empty list")
    if len(calls) > MAX_CALLS:
        return _refuse(f"At most {MAX_CALLS} calls in one batch", BATCH_TOO_LARGE)
    capabilities = request.get("capabilities")
    if capabilities is not None:
        refusal = _capabilities(capabilities)
        if refusal is not None:
            return refusal
    parsed: list[Call] = []
    for index, item in enumerate(calls):
        call = _call(item, index)
        if isinstance(call, CallsRefusal):
            return call
        parsed.append(call)
    paymaster = capabilities.get("paymasterService") if isinstance(capabilities, dict) else None
    required = paymaster is not None and not (isinstance(paymaster, dict) and paymaster.get("optional") is True)
    return CallBatch(int(chain, 16), sender or "", tuple(parsed), str(version), required)


def calls_id(user_op_hash: str, chain_id: int) -> str:
    """The id `wallet_sendCalls` returns: the UserOperation's hash, then the chain id (32 bytes)."""
    return "0x" + user_op_hash.removeprefix("0x").lower() + format(chain_id, "064x")


def parse_calls_id(params: object) -> tuple[str, int] | CallsRefusal:
    """`wallet_getCallsStatus` / `wallet_showCallsStatus` params: (UserOperation hash, chain id)."""
    if not isinstance(params, list) or len(params) != 1 or not isinstance(params[0], str):
        return _refuse("Expected one calls id")
    text = params[0]
    if not _CALLS_ID.match(text):
        return _refuse("Unknown calls id", UNKNOWN_BUNDLE)
    return "0x" + text[2:66].lower(), int(text[66:], 16)


def parse_capabilities_request(params: object) -> tuple[str, tuple[int, ...] | None] | CallsRefusal:
    """`wallet_getCapabilities [address, chainIds?]`: the address and the chains asked (None:
    every chain)."""
    if not isinstance(params, list) or not 1 <= len(params) <= 2:
        return _refuse("wallet_getCapabilities takes an address and optional chain ids")
    address = params[0]
    if not isinstance(address, str) or not _ADDRESS.match(address):
        return _refuse("The address must be a 0x-prefixed address")
    if len(params) == 1 or params[1] is None:
        return address, None
    chains = params[1]
    if not isinstance(chains, list) or len(chains) > 64:
        return _refuse("chainIds must be a list")
    ids: list[int] = []
    for chain in chains:
        if not isinstance(chain, str) or not _CHAIN_ID.match(chain):
            return _refuse("chainIds must be 0x-prefixed chain ids")
        ids.append(int(chain, 16))
    return address, tuple(ids)


def status_of(receipt: object) -> int:
    """A bundler's `eth_getUserOperationReceipt` answer as an EIP-5792 status code: none yet is
    pending, `success` true confirmed, false reverted (one UserOperation: all or nothing)."""
    if not isinstance(receipt, dict):
        return PENDING
    return CONFIRMED if receipt.get("success") is True else REVERTED
