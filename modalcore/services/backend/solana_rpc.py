"""A Solana JSON-RPC client (https://solana.com/docs/rpc) over httpx: the engine's only way to a
Solana cluster, whether the URL is a public endpoint, an operator's provider or the local dev
chain. Results are checked for the shapes a node answers; anything else is an RpcCallError."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import JsonValue

from ...rules.texts import http_status
from .jsonrpc import RPC_TIMEOUT_S, RpcCallError

TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
COMMITMENT = "confirmed"


@dataclass(frozen=True)
class SignatureStatus:
    slot: int
    err: JsonValue  # None when the transaction succeeded
    confirmation: str | None  # processed, confirmed, finalized


def _bad(method: str) -> RpcCallError:
    return RpcCallError(-32603, f"{method}: unexpected response")


def _int(value: object, method: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _bad(method)
    return value


def _value(result: object, method: str) -> object:
    if not isinstance(result, dict) or "value" not in result:
        raise _bad(method)
    return result["value"]


class SolanaRpc:
    def __init__(self, http: httpx.AsyncClient, url: str) -> None:
        self.http = http
        self.url = url

    async def request(self, method: str, params: list[object]) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        response = await self.http.post(self.url, json=body, timeout=RPC_TIMEOUT_S)
        if response.status_code != 200:
            raise RpcCallError(-32000, http_status(response.status_code))
        try:
            payload = response.json()
        except ValueError:
            raise _bad(method) from None
        if not isinstance(payload, dict):
            raise _bad(method)
        error = payload.get("error")
        if isinstance(error, dict):
            raise RpcCallError(int(error.get("code", -32603)), str(error.get("message", "")))
        if "result" not in payload:
            raise _bad(method)
        return payload["result"]

    async def genesis_hash(self) -> str:
        result = await self.request("getGenesisHash", [])
        if not isinstance(result, str):
            raise _bad("getGenesisHash")
        return result

    async def balance(self, address: str) -> int:
        result = await self.request("getBalance", [address, {"commitment": COMMITMENT}])
        return _int(_value(result, "getBalance"), "getBalance")

    async def token_balances(self, owner: str) -> dict[str, int]:
        """Raw SPL token amounts by mint, summed over the owner's token accounts."""
        result = await self.request("getTokenAccountsByOwner", [
            owner, {"programId": TOKEN_PROGRAM_ID}, {"encoding": "jsonParsed", "commitment": COMMITMENT}])
        rows = _value(result, "getTokenAccountsByOwner")
        if not isinstance(rows, list):
            raise _bad("getTokenAccountsByOwner")
        amounts: dict[str, int] = {}
        for row in rows:
            try:
                info = row["account"]["data"]["parsed"]["info"]
                mint = str(info["mint"])
                amount = int(info["tokenAmount"]["amount"])
            except (KeyError, TypeError, ValueError):
                raise _bad("getTokenAccountsByOwner") from None
            amounts[mint] = amounts.get(mint, 0) + amount
        return amounts

    async def account_exists(self, address: str) -> bool:
        result = await self.request("getAccountInfo", [address, {"encoding": "base64", "commitment": COMMITMENT}])
        return _value(result, "getAccountInfo") is not None

    async def latest_blockhash(self) -> tuple[str, int]:
        result = await self.request("getLatestBlockhash", [{"commitment": COMMITMENT}])
        value = _value(result, "getLatestBlockhash")
        if not isinstance(value, dict) or not isinstance(value.get("blockhash"), str):
            raise _bad("getLatestBlockhash")
        return value["blockhash"], _int(value.get("lastValidBlockHeight"), "getLatestBlockhash")

    async def minimum_balance_for_rent_exemption(self, size: int) -> int:
        result = await self.request("getMinimumBalanceForRentExemption", [size])
        return _int(result, "getMinimumBalanceForRentExemption")

    async def fee_for_message(self, message_base64: str) -> int | None:
        result = await self.request("getFeeForMessage", [message_base64, {"commitment": COMMITMENT}])
        value = _value(result, "getFeeForMessage")
        return None if value is None else _int(value, "getFeeForMessage")

    async def send_transaction(self, transaction_base64: str) -> str:
        result = await self.request("sendTransaction", [
            transaction_base64, {"encoding": "base64", "preflightCommitment": COMMITMENT}])
        if not isinstance(result, str):
            raise _bad("sendTransaction")
        return result

    async def signature_statuses(self, signatures: list[str]) -> list[SignatureStatus | None]:
        result = await self.request("getSignatureStatuses", [signatures, {"searchTransactionHistory": True}])
        values = _value(result, "getSignatureStatuses")
        if not isinstance(values, list) or len(values) != len(signatures):
            raise _bad("getSignatureStatuses")
        statuses: list[SignatureStatus | None] = []
        for value in values:
            if value is None:
                statuses.append(None)
                continue
            if not isinstance(value, dict):
                raise _bad("getSignatureStatuses")
            confirmation = value.get("confirmationStatus")
            statuses.append(SignatureStatus(
                _int(value.get("slot"), "getSignatureStatuses"), value.get("err"),
                confirmation if isinstance(confirmation, str) else None))
        return statuses

    async def signatures_for_address(self, address: str, *, limit: int, before: str | None = None) -> list[dict[str, Any]]:
        """Newest first: {signature, slot, err, blockTime, ...} of the transactions naming `address`."""
        config: dict[str, object] = {"limit": limit, "commitment": COMMITMENT}
        if before:
            config["before"] = before
        result = await self.request("getSignaturesForAddress", [address, config])
        if not isinstance(result, list) or not all(
                isinstance(row, dict) and isinstance(row.get("signature"), str) for row in result):
            raise _bad("getSignaturesForAddress")
        return result

    async def parsed_transaction(self, signature: str) -> dict[str, Any] | None:
        """The transaction with its instructions decoded by the node (`jsonParsed`); None when the
        node does not hold it."""
        result = await self.request("getTransaction", [signature, {
            "encoding": "jsonParsed", "commitment": COMMITMENT, "maxSupportedTransactionVersion": 0}])
        if result is not None and not isinstance(result, dict):
            raise _bad("getTransaction")
        return result

    async def request_airdrop(self, address: str, lamports: int) -> str:
        result = await self.request("requestAirdrop", [address, lamports])
        if not isinstance(result, str):
            raise _bad("requestAirdrop")
        return result
