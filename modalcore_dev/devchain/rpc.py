"""A small synchronous JSON-RPC client for the local dev chains (httpx).

Only what deploying and testing need: raw calls, sending a transaction from an unlocked dev
account and waiting for its receipt, `eth_call` with ABI encoding, and evm_snapshot/evm_revert.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from typing import Any

import httpx
from eth_abi.abi import decode, encode
from eth_utils.crypto import keccak


class RpcError(Exception):
    """The node answered with a JSON-RPC error object."""

    def __init__(self, method: str, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{method}: {code} {message}")
        self.method = method
        self.code = code
        self.message = message
        self.data = data


class TransactionFailed(Exception):
    """A mined transaction has status 0 (reverted)."""

    def __init__(self, tx_hash: str, receipt: dict[str, Any]) -> None:
        super().__init__(f"transaction {tx_hash} reverted")
        self.tx_hash = tx_hash
        self.receipt = receipt


def selector(signature: str) -> bytes:
    """The 4-byte function selector of e.g. 'balanceOf(address)'."""
    return keccak(text=signature)[:4]


def _arg_types(signature: str) -> list[str]:
    inner = signature[signature.index("(") + 1 : signature.rindex(")")]
    return [t for t in inner.split(",") if t]


def encode_call(signature: str, args: Sequence[Any] = ()) -> str:
    """ABI-encode a call: `encode_call('transfer(address,uint256)', [to, 5])` → 0x hex."""
    return "0x" + (selector(signature) + encode(_arg_types(signature), list(args))).hex()


def to_hex(value: int) -> str:
    return hex(value)


class Rpc:
    """JSON-RPC over HTTP to one node. Use as a context manager or call `close()`."""

    def __init__(self, url: str, timeout: float = 30.0) -> None:
        self.url = url
        self._client = httpx.Client(timeout=timeout)
        self._ids = itertools.count(1)

    def __enter__(self) -> Rpc:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def call(self, method: str, params: Sequence[Any] = ()) -> Any:
        body = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": list(params)}
        response = self._client.post(self.url, json=body)
        response.raise_for_status()
        payload = response.json()
        if "error" in payload:
            err = payload["error"]
            raise RpcError(method, int(err.get("code", 0)), str(err.get("message")), err.get("data"))
        return payload["result"]

    # -- chain facts -------------------------------------------------------------------------

    def chain_id(self) -> int:
        return int(self.call("eth_chainId"), 16)

    def accounts(self) -> list[str]:
        return list(self.call("eth_accounts"))

    def nonce(self, address: str) -> int:
        return int(self.call("eth_getTransactionCount", [address, "latest"]), 16)

    def balance(self, address: str) -> int:
        return int(self.call("eth_getBalance", [address, "latest"]), 16)

    def code(self, address: str) -> str:
        return str(self.call("eth_getCode", [address, "latest"]))

    # -- transactions ------------------------------------------------------------------------

    def send_transaction(self, tx: dict[str, Any]) -> str:
        """eth_sendTransaction from an unlocked account; returns the transaction hash."""
        return str(self.call("eth_sendTransaction", [tx]))

    def wait_receipt(self, tx_hash: str, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            receipt = self.call("eth_getTransactionReceipt", [tx_hash])
            if receipt is not None:
                if int(receipt["status"], 16) != 1:
                    raise TransactionFailed(tx_hash, receipt)
                return dict(receipt)
            if time.monotonic() > deadline:
                raise TimeoutError(f"no receipt for {tx_hash} after {timeout} s")
            time.sleep(0.05)

    def transact(self, tx: dict[str, Any]) -> dict[str, Any]:
        """Send and wait for the receipt (raises TransactionFailed on revert)."""
        return self.wait_receipt(self.send_transaction(tx))

    def send_call(
        self, sender: str, to: str, signature: str, args: Sequence[Any] = (), value: int = 0
    ) -> dict[str, Any]:
        tx: dict[str, Any] = {"from": sender, "to": to, "data": encode_call(signature, args)}
        if value:
            tx["value"] = to_hex(value)
        return self.transact(tx)

    # -- reads -------------------------------------------------------------------------------

    def eth_call(
        self, to: str, signature: str, args: Sequence[Any] = (), returns: Sequence[str] = ()
    ) -> tuple[Any, ...]:
        data = self.call("eth_call", [{"to": to, "data": encode_call(signature, args)}, "latest"])
        raw = bytes.fromhex(str(data)[2:])
        return tuple(decode(list(returns), raw)) if returns else (raw,)

    def erc20_balance(self, token: str, owner: str) -> int:
        (value,) = self.eth_call(token, "balanceOf(address)", [owner], ["uint256"])
        return int(value)

    # -- test isolation ----------------------------------------------------------------------

    def snapshot(self) -> str:
        return str(self.call("evm_snapshot"))

    def revert(self, snapshot_id: str) -> bool:
        return bool(self.call("evm_revert", [snapshot_id]))

    def mine(self) -> None:
        self.call("evm_mine")
