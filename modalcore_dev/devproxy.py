"""`POST /devchain/{chainId}`: a JSON-RPC proxy to a local dev chain (networks with `dev: true`).

A test asset for the demo page's Dev Wallet, routed only when the config says
`devchain_proxy = true` (`python -m modalcore_dev demo` does; `serve` does not by default). Its node
holds unlocked accounts, so a request is forwarded only when
- its `Origin` is allowed by one of the configured projects (the websocket handshake's matcher);
- its `Content-Type` is `application/json` (a cross-site form or `text/plain` POST, which a
  browser sends without asking first, never qualifies);
- it is one JSON-RPC request, or a batch of at most MAX_BATCH, of at most MAX_BODY_BYTES, each
  naming a method of ALLOWED_METHODS: what the Dev Wallet (renderer/demo/devwallet.ts) sends
  to a node, no `hardhat_*`, `evm_*` or raw-transaction methods; for a Solana dev chain, what
  the Solana Dev Wallet (renderer/demo/solwallet.ts) sends: `sendTransaction` of a transaction
  it signed (the dev chain holds no keys, so nothing unsigned can move funds) and reads.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from modalcore.server.config import EngineConfig

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024
MAX_BATCH = 100
UPSTREAM_TIMEOUT_S = 30.0

# The Dev Wallet's own calls to its node (accounts, signatures and transactions from the
# selected dev account), then the reads an EIP-1193 wallet passes on for the page.
ALLOWED_METHODS = frozenset({
    "eth_accounts",
    "personal_sign",
    "eth_sign",
    "eth_signTypedData_v4",
    "eth_sendTransaction",
    "eth_blockNumber",
    "eth_call",
    "eth_chainId",
    "eth_estimateGas",
    "eth_feeHistory",
    "eth_gasPrice",
    "eth_getBalance",
    "eth_getBlockByHash",
    "eth_getBlockByNumber",
    "eth_getCode",
    "eth_getLogs",
    "eth_getStorageAt",
    "eth_getTransactionByHash",
    "eth_getTransactionCount",
    "eth_getTransactionReceipt",
    "eth_maxPriorityFeePerGas",
    "net_version",
})
# The Solana Dev Wallet's solana:signAndSendTransaction (a transaction it signed), and reads; no
# `requestAirdrop`.
SOLANA_METHODS = frozenset({
    "sendTransaction",
    "getLatestBlockhash",
    "getBalance",
    "getSignatureStatuses",
})


def _rpc_error(status: int, code: int, message: str) -> JSONResponse:
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    return JSONResponse(body, status_code=status)


def _is_request(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("jsonrpc") == "2.0"
        and isinstance(value.get("method"), str)
        and 0 < len(value["method"]) <= 128
    )


def _valid_body(value: Any) -> bool:
    if isinstance(value, list):
        return 0 < len(value) <= MAX_BATCH and all(_is_request(item) for item in value)
    return _is_request(value)


def _refused_method(value: Any, allowed: frozenset[str]) -> str | None:
    """The first method of a valid body that is not allowed, if any."""
    for item in value if isinstance(value, list) else [value]:
        if item["method"] not in allowed:
            return str(item["method"])
    return None


def _is_json(content_type: str | None) -> bool:
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    return media_type == "application/json"


async def _read_body(request: Request) -> bytes | None:
    """The body, or None when it is larger than MAX_BODY_BYTES."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


async def devchain_proxy(request: Request) -> Response:
    config: EngineConfig = request.app.state.config
    if not config.allows_origin(request.headers.get("origin")):
        return _rpc_error(403, -32600, "origin not allowed")
    if not _is_json(request.headers.get("content-type")):
        return _rpc_error(415, -32600, "the content type must be application/json")
    chain_id = request.path_params["chainId"]
    network = config.dev_network(chain_id)
    if network is None:
        return _rpc_error(404, -32601, "no dev chain with this id")
    allowed = ALLOWED_METHODS if f"eip155:{chain_id}" in config.networks else SOLANA_METHODS
    body = await _read_body(request)
    if body is None:
        return _rpc_error(413, -32600, f"request bodies are at most {MAX_BODY_BYTES} bytes")
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return _rpc_error(400, -32700, "parse error")
    if not _valid_body(value):
        return _rpc_error(400, -32600, "invalid request")
    refused = _refused_method(value, allowed)
    if refused is not None:
        return _rpc_error(403, -32601, f"method {refused!r} is not available through this proxy")
    http: httpx.AsyncClient = request.app.state.http
    try:
        upstream = await http.post(
            network.rpc[0], content=body, headers={"content-type": "application/json"},
            timeout=UPSTREAM_TIMEOUT_S,
        )
    except httpx.HTTPError as error:
        log.info("dev chain %s unreachable: %s", network.name, error)
        return _rpc_error(502, -32603, "dev chain unreachable")
    return Response(upstream.content, status_code=upstream.status_code,
                    media_type="application/json")
