"""Solana transaction history for the Activity tab, read from the chain: the account's signatures
(`getSignaturesForAddress`, newest first, a page at a time) and each transaction with its
instructions decoded by the node (`getTransaction`, `jsonParsed`). SOL moves are System Program
transfers; token moves are SPL Token `transfer` / `transferChecked`, whose owners and decimals the
transaction's token balances tell. The answer has the hosted history call's shape (see
services/backend/history.py); its cursor is the last signature of the page (the next page's `before`)."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import httpx

from .history import NO_ACCOUNT, HistoryError
from .jsonrpc import RpcCallError
from ..domain.shapes import HISTORY_PAGE_SIZE, HistoryResult
from .solana_rpc import SolanaRpc

MAX_LIMIT = 50  # transactions per page this reader asks for at most (one getTransaction each)


def _units(raw: int, decimals: int) -> str:
    return format(Decimal(raw).scaleb(-decimals).normalize(), "f") if raw else "0"


def _direction(sender: str, receiver: str, account: str) -> str:
    if sender == account and receiver == account:
        return "self"
    return "out" if sender == account else "in"


def _short(mint: str) -> str:
    return f"{mint[:4]}…{mint[-4:]}" if len(mint) > 8 else mint


class _Reader:
    def __init__(self, account: str, native: tuple[str, str, int], tokens: dict[str, list[str]]) -> None:
        self.account = account
        self.native = native
        self.tokens = tokens

    def transfers(self, tx: dict[str, Any]) -> list[tuple[dict[str, Any], str, str]]:
        """(transfer in the hosted shape, sender, receiver) for each move touching the account."""
        meta = tx.get("meta") or {}
        message = tx["transaction"]["message"]
        keys = [k["pubkey"] if isinstance(k, dict) else k for k in message["accountKeys"]]
        instructions = list(message.get("instructions") or ())
        for inner in meta.get("innerInstructions") or ():
            instructions += inner.get("instructions") or ()
        holders: dict[str, tuple[str, str, int]] = {}  # token account -> (owner, mint, decimals)
        for row in [*(meta.get("preTokenBalances") or ()), *(meta.get("postTokenBalances") or ())]:
            holders[keys[row["accountIndex"]]] = (str(row.get("owner") or ""), str(row["mint"]),
                                                  int(row["uiTokenAmount"]["decimals"]))
        found = []
        for ins in instructions:
            parsed = ins.get("parsed")
            if not isinstance(parsed, dict):
                continue
            kind, info = parsed.get("type"), parsed.get("info") or {}
            if ins.get("program") == "system" and kind in ("transfer", "transferWithSeed"):
                sender, receiver = str(info["source"]), str(info["destination"])
                name, symbol, decimals = self.native
                quantity, fungible = _units(int(info["lamports"]), decimals), {"name": name, "symbol": symbol}
            elif ins.get("program") == "spl-token" and kind in ("transfer", "transferChecked"):
                source, destination = str(info["source"]), str(info["destination"])
                held = holders.get(source) or holders.get(destination)
                sender = str(info.get("authority") or info.get("multisigAuthority") or (held[0] if held else source))
                receiver = holders[destination][0] if destination in holders else destination
                mint = str(info.get("mint") or (held[1] if held else ""))
                amount = info.get("tokenAmount")
                raw, decimals = ((int(amount["amount"]), int(amount["decimals"])) if isinstance(amount, dict)
                                 else (int(info["amount"]), held[2] if held else 0))
                symbol, name = (self.tokens.get(mint) or [_short(mint), "Unknown token"])[:2]
                quantity, fungible = _units(raw, decimals), {"name": name, "symbol": symbol, "address": mint}
            else:
                continue
            if self.account not in (sender, receiver):
                continue
            found.append(({"fungible_info": {**fungible, "icon": {"url": ""}},
                           "direction": _direction(sender, receiver, self.account),
                           "quantity": {"numeric": quantity}}, sender, receiver))
        return found

    def transaction(self, signature: str, tx: dict[str, Any], chain: str) -> dict[str, object]:
        moves = self.transfers(tx)
        keys = tx["transaction"]["message"]["accountKeys"]
        payer = str(keys[0]["pubkey"] if isinstance(keys[0], dict) else keys[0]) if keys else ""
        sender, receiver = (moves[0][1], moves[0][2]) if moves else (payer, "")
        direction = moves[0][0]["direction"] if moves else ""
        operation = "receive" if direction == "in" else "send" if moves else "execute"
        return {
            "id": signature,
            "metadata": {
                "operationType": operation, "hash": signature, "minedAt": int(tx.get("blockTime") or 0),
                "sentFrom": sender, "sentTo": receiver,
                "status": "confirmed" if (tx.get("meta") or {}).get("err") is None else "failed",
                "nonce": 0, "chain": chain,
            },
            "transfers": [move for move, _, _ in moves],
        }


async def fetch_solana_history(
    http: httpx.AsyncClient, *, rpc_url: str, address: str, chain: str, cursor: str | None = None,
    limit: int = HISTORY_PAGE_SIZE, native_name: str = "Solana", native_symbol: str = "SOL",
    native_decimals: int = 9, tokens: dict[str, list[str]] | None = None,
) -> HistoryResult:
    """One page of the account's transactions on the Solana cluster at `rpc_url`, newest first."""
    if not address:
        raise HistoryError(NO_ACCOUNT)
    if not 1 <= limit <= MAX_LIMIT:
        raise HistoryError(f"limit must be 1 to {MAX_LIMIT}")
    rpc = SolanaRpc(http, rpc_url)
    signatures = await rpc.signatures_for_address(address, limit=limit, before=cursor or None)
    found = await asyncio.gather(*(rpc.parsed_transaction(row["signature"]) for row in signatures))
    reader = _Reader(address, (native_name, native_symbol, native_decimals), tokens or {})
    data = []
    for row, tx in zip(signatures, found, strict=True):
        if tx is None:
            continue  # listed but not served (pruned): a node may do that
        try:
            data.append(reader.transaction(str(row["signature"]), tx, chain))
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise RpcCallError(-32603, f"getTransaction: unexpected response ({type(error).__name__})") from None
    next_cursor = str(signatures[-1]["signature"]) if len(signatures) == limit else None
    return {"data": data, "next": next_cursor}
