"""An ERC-4337 bundler's JSON-RPC (issue 32): the five methods the engine uses, over httpx.

Each answer is read to at most `max_response_bytes`; every failure is a `BundlerError` whose
`reason` (and `kind`, the session's FailureKind) says what happened, never text to match on.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from ..core.cmds import FailureKind
from ..core.services import ServiceError
from .userop import MalformedUserOp, UserOperation, address, hex_bytes, quantity

MAX_RESPONSE_BYTES = 256 * 1024
BUNDLER_TIMEOUT_S = 10.0

BundlerFailure = Literal["unreachable", "timeout", "http_status", "too_large", "malformed_response",
                         "rpc_error", "unsupported_entry_point"]
_KINDS: dict[BundlerFailure, FailureKind] = {
    "unreachable": "upstream", "timeout": "timeout", "http_status": "upstream", "too_large": "upstream",
    "malformed_response": "upstream", "rpc_error": "rejected", "unsupported_entry_point": "invalid",
}


class BundlerError(ServiceError):
    """The bundler could not be asked, answered out of shape, or refused (`code`: its JSON-RPC
    error code, e.g. -32602 invalid params, -32500 refused by the account's validation,
    -32501 by the paymaster's)."""

    def __init__(self, reason: BundlerFailure, method: str, code: int | None = None, detail: str = "") -> None:
        super().__init__(f"bundler {method}: {reason}" + (f" {code}" if code is not None else ""),
                         _KINDS[reason])
        self.reason: BundlerFailure = reason
        self.method = method
        self.code = code
        self.detail = detail[:500]


@dataclass(frozen=True)
class GasEstimate:
    pre_verification_gas: int
    verification_gas_limit: int
    call_gas_limit: int
    paymaster_verification_gas_limit: int = 0
    paymaster_post_op_gas_limit: int = 0


@dataclass(frozen=True)
class UserOpReceipt:
    """eth_getUserOperationReceipt: the operation's own success and cost, and its transaction."""

    user_op_hash: str
    sender: str
    success: bool
    transaction_hash: str
    block_number: int
    actual_gas_used: int
    actual_gas_cost: int
    paymaster: str | None
    transaction_gas_used: int  # the bundle transaction's gasUsed (all its operations)


@dataclass(frozen=True)
class UserOpLookup:
    """eth_getUserOperationByHash: the operation and, once included, where."""

    user_operation: UserOperation
    entry_point: str
    transaction_hash: str | None
    block_number: int | None


def _hash(value: object, method: str) -> str:
    if not isinstance(value, str) or len(value) != 66:
        raise BundlerError("malformed_response", method)
    try:
        hex_bytes(value, "hash", 32)
    except MalformedUserOp:
        raise BundlerError("malformed_response", method) from None
    return value.lower()


def _gas(raw: Mapping[str, object], name: str, method: str, required: bool = True) -> int:
    value = raw.get(name)
    if value is None and not required:
        return 0
    try:
        return quantity(value, name)
    except MalformedUserOp:
        raise BundlerError("malformed_response", method) from None


class BundlerClient:
    """One bundler endpoint. `http` is the engine's shared client (closed by its owner)."""

    def __init__(self, http: httpx.AsyncClient, url: str, *, timeout_s: float = BUNDLER_TIMEOUT_S,
                 max_response_bytes: int = MAX_RESPONSE_BYTES) -> None:
        self.http = http
        self.url = url
        self.timeout_s = timeout_s
        self.max_response_bytes = max_response_bytes
        self._ids = itertools.count(1)

    async def request(self, method: str, params: list[object]) -> Any:
        """One JSON-RPC call; its result, or BundlerError."""
        request_id = next(self._ids)
        body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        try:
            async with self.http.stream("POST", self.url, json=body, timeout=self.timeout_s) as response:
                chunks, size = [], 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > self.max_response_bytes:
                        raise BundlerError("too_large", method)
                    chunks.append(chunk)
                status = response.status_code
        except httpx.TimeoutException:
            raise BundlerError("timeout", method) from None
        except httpx.HTTPError as error:
            raise BundlerError("unreachable", method, detail=type(error).__name__) from None
        try:
            payload = json.loads(b"".join(chunks))
        except ValueError:
            raise BundlerError("http_status" if status != 200 else "malformed_response", method,
                               code=None if status == 200 else status) from None
        if not isinstance(payload, dict) or payload.get("id") != request_id:
            raise BundlerError("malformed_response", method)
        failure = payload.get("error")
        if failure is not None:
            if not isinstance(failure, dict) or not isinstance(failure.get("code"), int):
                raise BundlerError("malformed_response", method)
            raise BundlerError("rpc_error", method, code=int(failure["code"]), detail=str(failure.get("message", "")))
        if status != 200:
            raise BundlerError("http_status", method, code=status)
        return payload.get("result")

    async def supported_entry_points(self) -> list[str]:
        method = "eth_supportedEntryPoints"
        result = await self.request(method, [])
        if not isinstance(result, list) or len(result) > 16:
            raise BundlerError("malformed_response", method)
        try:
            return [address(item) for item in result]
        except MalformedUserOp:
            raise BundlerError("malformed_response", method) from None

    async def estimate_user_operation_gas(self, op: UserOperation, entry_point: str) -> GasEstimate:
        method = "eth_estimateUserOperationGas"
        result = await self.request(method, [op.to_rpc(), address(entry_point, "entryPoint")])
        if not isinstance(result, dict):
            raise BundlerError("malformed_response", method)
        return GasEstimate(
            pre_verification_gas=_gas(result, "preVerificationGas", method),
            verification_gas_limit=_gas(result, "verificationGasLimit", method),
            call_gas_limit=_gas(result, "callGasLimit", method),
            paymaster_verification_gas_limit=_gas(result, "paymasterVerificationGasLimit", method, False),
            paymaster_post_op_gas_limit=_gas(result, "paymasterPostOpGasLimit", method, False),
        )

    async def send_user_operation(self, op: UserOperation, entry_point: str) -> str:
        """The operation's hash as the bundler computed it."""
        method = "eth_sendUserOperation"
        return _hash(await self.request(method, [op.to_rpc(), address(entry_point, "entryPoint")]), method)

    async def get_user_operation_receipt(self, user_op_hash: str) -> UserOpReceipt | None:
        method = "eth_getUserOperationReceipt"
        result = await self.request(method, [_hash(user_op_hash, method)])
        if result is None:
            return None
        if not isinstance(result, dict) or not isinstance(result.get("receipt"), dict):
            raise BundlerError("malformed_response", method)
        receipt: dict[str, object] = result["receipt"]
        success = result.get("success")
        if not isinstance(success, bool):
            raise BundlerError("malformed_response", method)
        try:
            paymaster = result.get("paymaster")
            paymaster = None if paymaster in (None, "0x", "0x" + "0" * 40) else address(paymaster)
            return UserOpReceipt(
                user_op_hash=_hash(result.get("userOpHash"), method), sender=address(result.get("sender")),
                success=success, transaction_hash=_hash(receipt.get("transactionHash"), method),
                block_number=quantity(receipt.get("blockNumber"), "blockNumber"),
                actual_gas_used=quantity(result.get("actualGasUsed"), "actualGasUsed"),
                actual_gas_cost=quantity(result.get("actualGasCost"), "actualGasCost"),
                paymaster=paymaster, transaction_gas_used=quantity(receipt.get("gasUsed"), "gasUsed"),
            )
        except MalformedUserOp:
            raise BundlerError("malformed_response", method) from None

    async def get_user_operation_by_hash(self, user_op_hash: str) -> UserOpLookup | None:
        method = "eth_getUserOperationByHash"
        result = await self.request(method, [_hash(user_op_hash, method)])
        if result is None:
            return None
        if not isinstance(result, dict):
            raise BundlerError("malformed_response", method)
        try:
            tx = result.get("transactionHash")
            block = result.get("blockNumber")
            return UserOpLookup(
                user_operation=UserOperation.from_rpc(result.get("userOperation")),
                entry_point=address(result.get("entryPoint")),
                transaction_hash=None if tx is None else _hash(tx, method),
                block_number=None if block is None else quantity(block, "blockNumber"),
            )
        except MalformedUserOp:
            raise BundlerError("malformed_response", method) from None
