"""Transaction history (behaviour.md §3 "Transaction", §7 history call): a self-hosted provider that
indexes an EVM chain for one account, and an adapter over the hosted Blockchain API call.

Both answer in the hosted call's shape, `{"data": [transaction, ...], "next": cursor | None}`,
newest first, each transaction `{id, metadata: {operationType, hash, minedAt, sentFrom, sentTo,
status, nonce, chain}, transfers: [{fungible_info: {name, symbol, icon: {url}}, direction,
quantity: {numeric}}]}`.

The self-hosted provider reads native transfers from blocks (eth_getBlockByNumber with full
transactions) and ERC-20 transfers from `Transfer` logs (eth_getLogs, the account as sender or
receiver). Its cursor `"<block>:<tx index>"` names the last transaction of the page; the next
page holds the transactions before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import logging

import httpx
from eth_utils.address import to_checksum_address
from eth_utils.crypto import keccak

from .blockchain_api import BlockchainApiError
from .abi import decode_string
from .history_userops import USER_OPERATION_EVENT, account_calls, native_sends, succeeded
from .jsonrpc import RpcCallError, tolerant_batch
from ..domain.shapes import HISTORY_PAGE_SIZE, HistoryResult
from ...rules import texts

if TYPE_CHECKING:
    from .blockchain_api import BlockchainApi

log = logging.getLogger(__name__)
PAGE_SIZE = HISTORY_PAGE_SIZE
LOCAL_ONRAMP = "local"  # the `onramp` mark of purchases through the dev chains' local provider
CHUNK_BLOCKS = 64  # blocks fetched per JSON-RPC batch while scanning back
NO_ACCOUNT = texts.NO_ACCOUNT_ADDRESS_FOR_TRANSACTIONS
TRANSFER_TOPIC = "0x" + keccak(text="Transfer(address,address,uint256)").hex()
NAME, SYMBOL, DECIMALS = "0x06fdde03", "0x95d89b41", "0x313ce567"
# WETH9's `Withdrawal(address indexed src, uint wad)`: a Uniswap V2 router unwraps the WETH a
# token→ETH swap bought, then sends the ETH to the swap's `to` as an internal transfer that no
# block or log shows; this log (src = the router) is where its exact amount can be read
WITHDRAWAL_TOPIC = "0x" + keccak(text="Withdrawal(address,uint256)").hex()
# the Router02 functions that pay ETH out of an unwrap; each has `to` as its fourth argument
ETH_OUT_SELECTORS = frozenset({
    "0x" + keccak(text=signature).hex()[:8] for signature in (
        "swapExactTokensForETH(uint256,uint256,address[],address,uint256)",
        "swapTokensForExactETH(uint256,uint256,address[],address,uint256)",
        "swapExactTokensForETHSupportingFeeOnTransferTokens(uint256,uint256,address[],address,uint256)",
    )
})


class HistoryError(ValueError):
    pass


@dataclass
class _Item:
    """One transaction that touches the account."""

    block: int
    index: int
    tx: dict[str, Any]
    timestamp: int
    native: bool = False
    logs: list[dict[str, Any]] = field(default_factory=list)
    # a bundle holding the account's UserOperation (issue 32): the account is its sender, the
    # ETH its operations sent (internal transfers), whether an operation of it failed
    by_account: bool = False
    sent: list[tuple[str, int]] = field(default_factory=list)
    op_failed: bool = False

    @property
    def position(self) -> tuple[int, int]:
        return self.block, self.index


def parse_cursor(cursor: str | None) -> tuple[int, int] | None:
    if not cursor:
        return None
    block, sep, index = cursor.partition(":")
    if not sep or not block.isdigit() or not index.isdigit():
        raise HistoryError(f"invalid cursor {cursor!r}")
    return int(block), int(index)


async def _strict(http: httpx.AsyncClient, url: str, calls: list[tuple[str, list[object]]]) -> list[Any]:
    results = await tolerant_batch(http, url, calls)
    if any(result is None for result in results):
        raise RpcCallError(-32603, "the node did not answer every history call")
    return results


def _topic(address: str) -> str:
    return "0x" + address.removeprefix("0x").rjust(64, "0")


async def _scan(http: httpx.AsyncClient, url: str, account: str, lo: int, hi: int,
                before: tuple[int, int] | None, items: dict[str, _Item]) -> None:
    calls: list[tuple[str, list[object]]] = [
        ("eth_getBlockByNumber", [hex(n), True]) for n in range(lo, hi + 1)
    ]
    span = {"fromBlock": hex(lo), "toBlock": hex(hi)}
    calls.append(("eth_getLogs", [{**span, "topics": [TRANSFER_TOPIC, _topic(account)]}]))
    calls.append(("eth_getLogs", [{**span, "topics": [TRANSFER_TOPIC, None, _topic(account)]}]))
    calls.append(("eth_getLogs", [{**span, "topics": [USER_OPERATION_EVENT, None, _topic(account)]}]))
    results = await _strict(http, url, calls)
    blocks, sent_logs, received_logs, operations = results[:-3], results[-3], results[-2], results[-1]
    txs: dict[str, tuple[dict[str, object], int]] = {}
    for block in blocks:
        timestamp = int(block["timestamp"], 16)
        for tx in block["transactions"]:
            txs[tx["hash"]] = (tx, timestamp)
            position = (int(tx["blockNumber"], 16), int(tx["transactionIndex"], 16))
            if before is not None and position >= before:
                continue
            touches = account in (str(tx["from"]).lower(), str(tx.get("to") or "").lower())
            if touches and tx.get("to") and int(tx["value"], 16) > 0:
                items[tx["hash"]] = _Item(*position, tx, timestamp, native=True)
    seen: set[tuple[str, str]] = set()
    for log in [*sent_logs, *received_logs]:
        key = (log["transactionHash"], log["logIndex"])
        if key in seen or log.get("removed") or len(log["topics"]) != 3:
            continue  # ERC-721 transfers index their token id: four topics
        seen.add(key)
        position = (int(log["blockNumber"], 16), int(log["transactionIndex"], 16))
        if (before is not None and position >= before) or log["transactionHash"] not in txs:
            continue
        item = items.get(log["transactionHash"])
        if item is None:
            tx, timestamp = txs[log["transactionHash"]]
            item = items[log["transactionHash"]] = _Item(*position, tx, timestamp)
        item.logs.append(log)
    _operations(operations, account, before, txs, items)


def _operations(operations: list[dict[str, Any]], account: str, before: tuple[int, int] | None,
                txs: dict[str, tuple[dict[str, Any], int]], items: dict[str, _Item]) -> None:
    """The bundles holding the account's UserOperations (UserOperationEvent, sender = account)."""
    for log in operations:
        position = (int(log["blockNumber"], 16), int(log["transactionIndex"], 16))
        if log.get("removed") or (before is not None and position >= before) or log["transactionHash"] not in txs:
            continue
        tx, timestamp = txs[log["transactionHash"]]
        item = items.get(log["transactionHash"])
        sent = native_sends(tx, account) if item is None or not item.by_account else item.sent
        if item is None:
            if not sent:
                continue  # no transfer of the account's (token transfers are found by their logs)
            item = items[log["transactionHash"]] = _Item(*position, tx, timestamp)
        item.by_account, item.sent = True, sent
        item.op_failed = item.op_failed or not succeeded(log)


async def _token_meta(http: httpx.AsyncClient, url: str, tokens: list[str]) -> dict[str, tuple[str, str, int]]:
    calls: list[tuple[str, list[object]]] = []
    for token in tokens:
        calls += [("eth_call", [{"to": token, "data": data}, "latest"]) for data in (NAME, SYMBOL, DECIMALS)]
    results = await tolerant_batch(http, url, calls)
    meta = {}
    for i, token in enumerate(tokens):
        name, symbol, decimals = results[3 * i : 3 * i + 3]
        symbol_text = decode_string(symbol) or "?"
        digits = int(decimals, 16) if decimals and decimals != "0x" else 0
        meta[token] = (decode_string(name) or symbol_text, symbol_text, digits if digits <= 77 else 0)
    return meta


def _units(raw: int, decimals: int) -> str:
    return format(Decimal(raw).scaleb(-decimals).normalize(), "f") if raw else "0"


def _direction(sender: str, receiver: str, account: str) -> str:
    if sender == account and receiver == account:
        return "self"
    return "out" if sender == account else "in"


@dataclass(frozen=True)
class Native:
    name: str = "Ether"
    symbol: str = "ETH"
    decimals: int = 18


def _router_calls(item: _Item, account: str) -> list[tuple[str, str]]:
    """(target, 0x call data) of the calls the account made in the transaction: the transaction
    itself when the account sent it, its UserOperations' calls when it is a bundle holding them."""
    tx = item.tx
    calls = []
    if str(tx["from"]).lower() == account and tx.get("to"):
        calls.append((str(tx["to"]).lower(), str(tx.get("input") or tx.get("data") or "")))
    if item.by_account:
        calls += [(to, "0x" + data.hex()) for to, _, data in account_calls(tx, account)]
    return calls


def _eth_out(item: _Item, account: str, receipt: dict[str, Any]) -> tuple[str, int] | None:
    """(router, wei) the router paid the account as an internal transfer: the account called a
    router's token→ETH function naming the account as `to` (directly or by a UserOperation), and
    the receipt holds the WETH `Withdrawal` whose src is that router (the router unwraps exactly
    what it pays out)."""
    routers = {router for router, data in _router_calls(item, account)
               if data[:10].lower() in ETH_OUT_SELECTORS and len(data) >= 10 + 64 * 4
               and "0x" + data[10 + 64 * 3 + 24 : 10 + 64 * 4].lower() == account}
    if not routers:
        return None
    wad = 0
    router = sorted(routers)[0]
    for log in receipt.get("logs") or ():
        topics = log.get("topics") or []
        if (len(topics) == 2 and str(topics[0]).lower() == WITHDRAWAL_TOPIC
                and "0x" + str(topics[1])[-40:].lower() in routers and not log.get("removed")):
            wad += int(log["data"], 16) if log.get("data") not in (None, "0x") else 0
    return (router, wad) if wad else None


def _transaction(item: _Item, account: str, chain: str, status: str, native: Native,
                 tokens: dict[str, tuple[str, str, int]], eth_in: tuple[str, int] | None = None) -> dict[str, object]:
    tx = item.tx
    parties: list[tuple[str, str]] = []
    transfers: list[dict[str, Any]] = []
    if item.native:
        sender, receiver = str(tx["from"]).lower(), str(tx["to"]).lower()
        parties.append((sender, receiver))
        transfers.append({
            "fungible_info": {"name": native.name, "symbol": native.symbol, "icon": {"url": ""}},
            "direction": _direction(sender, receiver, account),
            "quantity": {"numeric": _units(int(tx["value"], 16), native.decimals)},
        })
    for log in sorted(item.logs, key=lambda entry: int(entry["logIndex"], 16)):
        sender, receiver = "0x" + log["topics"][1][-40:], "0x" + log["topics"][2][-40:]
        parties.append((sender, receiver))
        name, symbol, decimals = tokens[str(log["address"]).lower()]
        transfers.append({
            "fungible_info": {"name": name, "symbol": symbol, "icon": {"url": ""},
                              "address": to_checksum_address(log["address"])},
            "direction": _direction(sender, receiver, account),
            "quantity": {"numeric": _units(int(log["data"], 16) if log["data"] != "0x" else 0, decimals)},
        })
    for receiver, wei in item.sent:  # the account's ETH sent by its UserOperation
        parties.append((account, receiver))
        transfers.append({
            "fungible_info": {"name": native.name, "symbol": native.symbol, "icon": {"url": ""}},
            "direction": _direction(account, receiver, account),
            "quantity": {"numeric": _units(wei, native.decimals)},
        })
    if eth_in is not None:
        router, wei = eth_in
        parties.append((router, account))
        transfers.append({
            "fungible_info": {"name": native.name, "symbol": native.symbol, "icon": {"url": ""}},
            "direction": "in",
            "quantity": {"numeric": _units(wei, native.decimals)},
        })
    sender, receiver = parties[0]
    directions = sorted(transfer["direction"] for transfer in transfers)
    # a swap: one token went out and another came back in the same transaction (the hosted API's
    # name for it is "trade"); adding liquidity (two out, one in) stays a send
    operation = ("trade" if directions == ["in", "out"]
                 else "send" if str(tx["from"]).lower() == account or item.by_account else "receive")
    mined = datetime.fromtimestamp(item.timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "id": tx["hash"],
        "metadata": {
            "operationType": operation,
            "hash": tx["hash"],
            "minedAt": mined,
            "sentFrom": to_checksum_address(sender),
            "sentTo": to_checksum_address(receiver),
            "status": status,
            "nonce": int(tx["nonce"], 16),
            "chain": chain,
        },
        "transfers": transfers,
    }


async def fetch_history(
    http: httpx.AsyncClient, *, rpc_url: str, address: str, chain: str, cursor: str | None = None,
    limit: int = PAGE_SIZE, native_name: str = "Ether", native_symbol: str = "ETH",
    native_decimals: int = 18,
) -> HistoryResult:
    """One page of the account's transactions on the chain at `rpc_url`, newest first."""
    if not address:
        raise HistoryError(NO_ACCOUNT)
    if limit < 1:
        raise HistoryError("limit must be at least 1")
    account = address.lower()
    before = parse_cursor(cursor)
    (latest_hex,) = await _strict(http, rpc_url, [("eth_blockNumber", [])])
    latest = int(latest_hex, 16)
    items: dict[str, _Item] = {}
    hi = latest if before is None else min(before[0], latest)
    while hi >= 0 and len(items) <= limit:
        lo = max(0, hi - CHUNK_BLOCKS + 1)
        await _scan(http, rpc_url, account, lo, hi, before, items)
        hi = lo - 1
    ordered = sorted(items.values(), key=lambda item: item.position, reverse=True)
    page = ordered[:limit]
    receipts = await _strict(
        http, rpc_url, [("eth_getTransactionReceipt", [item.tx["hash"]]) for item in page])
    token_addresses = sorted({str(log["address"]).lower() for item in page for log in item.logs})
    tokens = await _token_meta(http, rpc_url, token_addresses)
    native = Native(native_name, native_symbol, native_decimals)
    data = [
        _transaction(item, account, chain,
                     "confirmed" if int(receipt["status"], 16) == 1 and not item.op_failed else "failed", native, tokens,
                     _eth_out(item, account, receipt))
        for item, receipt in zip(page, receipts, strict=True)
    ]
    next_cursor = f"{page[-1].block}:{page[-1].index}" if len(ordered) > limit else None
    return {"data": data, "next": next_cursor}


async def hosted_history(api: BlockchainApi, *, address: str, chain: str, cursor: str | None = None,
                         onramp: str | None = None) -> HistoryResult:
    """The hosted call (GET /v1/account/{account}/history: cursor, onramp, chainId)."""
    if not address:
        raise HistoryError(NO_ACCOUNT)
    result = await api.history(address, cursor=cursor, onramp=onramp, chain_id=chain)
    if not isinstance(result, dict):
        raise HistoryError("unexpected history response")
    cursor_next = result.get("next")
    return {"data": list(result.get("data") or []),
            "next": cursor_next if isinstance(cursor_next, (str, int)) and cursor_next else None}


async def with_onramp(api: BlockchainApi, page: HistoryResult, *, address: str, chain: str,
                      onramp: str) -> HistoryResult:
    """The first Activity page with the account's onramp purchases (behaviour.md §3 coinbaseTransactions):
    the hosted call asked again with `onramp`, each of its transactions marked `"onramp": <name>`
    so Activity draws it as a purchase. A failed onramp call keeps the account's page as it is."""
    try:
        bought = await hosted_history(api, address=address, chain=chain, onramp=onramp)
    except (httpx.HTTPError, BlockchainApiError, HistoryError, ValueError) as error:
        log.warning("the onramp transactions could not be fetched: %s", type(error).__name__)
        return page
    known = {tx.get("id") for tx in page["data"]}
    extra = [{**tx, "onramp": onramp} for tx in bought["data"]
             if isinstance(tx, dict) and tx.get("id") not in known]
    return {"data": [*page["data"], *extra], "next": page["next"]}


def mark_purchases(page: HistoryResult, hashes: frozenset[str], onramp: str) -> HistoryResult:
    """The self-hosted page with the transactions an onramp provider sent (known by their hashes)
    marked `"onramp": <name>`, as the hosted onramp transactions are."""
    if not hashes:
        return page
    return {"data": [{**tx, "onramp": onramp} if str(tx.get("id", "")).lower() in hashes else tx
                     for tx in page["data"]], "next": page["next"]}
