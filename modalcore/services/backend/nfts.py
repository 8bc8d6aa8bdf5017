"""ERC-721 holdings of one address, found by a self-hosted scan of the chain's `Transfer` logs.

ERC-721 and ERC-20 share the `Transfer(address,address,uint256)` event; ERC-721 indexes the
token id as well, so its logs carry four topics (ERC-20: three). The scan asks the node, in one
JSON-RPC batch pinned to one block, for every `Transfer` log from block 0 with the address as
sender and every one with the address as receiver, keeps the four-topic ones, and replays them
in chain order per (contract, token id): the address owns a token when the last transfer of it
went to the address (received minus sent; a transfer to oneself keeps it). Each collection's
`name()` and `symbol()` are read with eth_call (a collection without them still counts), and
each of the first MAX_NFTS tokens' `tokenURI` (services/backend/nft_metadata.py: its image when the URI
carries the metadata itself).

Answer: `{"block": latest block scanned, "items": [{"contract": checksummed address,
"token_id": decimal string, "name": collection name, "symbol": collection symbol, "image": the
token's image or ""}, ...]}`, sorted by contract, then token id.
"""

from __future__ import annotations

from typing import Any

import httpx
from eth_utils.address import to_checksum_address

from .abi import decode_string
from .history import NAME, SYMBOL, TRANSFER_TOPIC
from ...rules.limits import MAX_NFTS
from .jsonrpc import RpcCallError, batch, tolerant_batch
from .nft_metadata import image_from_token_uri, token_uri_call
from ..domain.shapes import NftItem, NftsResult

ERC721_TOPICS = 4  # Transfer(from, to, tokenId) with all three indexed


class NftsError(ValueError):
    pass


def address_topic(address: str) -> str:
    return "0x" + address.lower().removeprefix("0x").rjust(64, "0")


def _position(log: dict[str, Any]) -> tuple[int, int, int]:
    return int(log["blockNumber"], 16), int(log["transactionIndex"], 16), int(log["logIndex"], 16)


def holdings(logs: list[dict[str, Any]], address: str) -> list[tuple[str, int]]:
    """(contract lower-case, token id) the address owns after `logs` (its ERC-721 transfers in
    and out, in any order, duplicates allowed), sorted."""
    account = address_topic(address)
    seen: set[tuple[str, str]] = set()
    last: dict[tuple[str, int], tuple[tuple[int, int, int], bool]] = {}
    for log in logs:
        topics = log.get("topics") or []
        if log.get("removed") or len(topics) != ERC721_TOPICS or str(topics[0]).lower() != TRANSFER_TOPIC:
            continue  # ERC-20 transfers (three topics) and other events
        key = (str(log["transactionHash"]), str(log["logIndex"]))
        if key in seen:
            continue  # a transfer to oneself is in both answers
        seen.add(key)
        token = (str(log["address"]).lower(), int(topics[3], 16))
        position = _position(log)
        received = str(topics[2]).lower() == account
        if token not in last or last[token][0] < position:
            last[token] = (position, received)
    return sorted(token for token, (_, owned) in last.items() if owned)


async def _images(http: httpx.AsyncClient, rpc_url: str, tokens: list[tuple[str, int]], block: str) -> list[str]:
    """Each token's image from its tokenURI, "" where none; a node refusing the batch costs the
    images only, never the holdings."""
    try:
        uris = await tolerant_batch(http, rpc_url, [
            ("eth_call", [{"to": contract, "data": token_uri_call(token_id)}, block]) for contract, token_id in tokens])
    except (httpx.HTTPError, RpcCallError, ValueError):
        return [""] * len(tokens)
    images = []
    for uri in uris:
        try:
            images.append(image_from_token_uri(decode_string(uri if isinstance(uri, str) else None) or ""))
        except ValueError:  # not hex
            images.append("")
    return images


async def fetch_nfts(http: httpx.AsyncClient, *, rpc_url: str, address: str) -> NftsResult:
    """The ERC-721 tokens `address` holds on the chain at `rpc_url` (module docstring)."""
    if not address:
        raise NftsError("NFTs can't be fetched without an address")
    (latest_hex,) = await batch(http, rpc_url, [("eth_blockNumber", [])])
    span = {"fromBlock": "0x0", "toBlock": latest_hex}
    topic = address_topic(address)
    sent, received = await batch(http, rpc_url, [
        ("eth_getLogs", [{**span, "topics": [TRANSFER_TOPIC, topic]}]),
        ("eth_getLogs", [{**span, "topics": [TRANSFER_TOPIC, None, topic]}]),
    ])
    if not isinstance(sent, list) or not isinstance(received, list):
        raise RpcCallError(-32603, "eth_getLogs did not answer a list")
    owned = holdings([*sent, *received], address)
    contracts = sorted({contract for contract, _ in owned})
    calls: list[tuple[str, list[object]]] = []
    for contract in contracts:
        calls += [("eth_call", [{"to": contract, "data": data}, latest_hex]) for data in (NAME, SYMBOL)]
    results = await tolerant_batch(http, rpc_url, calls)
    meta: dict[str, tuple[str, str]] = {}
    for i, contract in enumerate(contracts):
        name, symbol = decode_string(results[2 * i]), decode_string(results[2 * i + 1])
        meta[contract] = (name or symbol or "", symbol or "")
    shown = owned[:MAX_NFTS]  # the session keeps no more (rules/limits.py)
    images = await _images(http, rpc_url, shown, latest_hex)
    items: list[NftItem] = [
        {"contract": to_checksum_address(contract), "token_id": str(token_id),
         "name": meta[contract][0], "symbol": meta[contract][1], "image": images[i] if i < len(images) else ""}
        for i, (contract, token_id) in enumerate(owned)
    ]
    return {"block": int(latest_hex, 16), "items": items}
