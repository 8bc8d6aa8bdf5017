"""`POST /devchain/{chainId}`: a JSON-RPC proxy to a local dev chain (networks with `dev: true`).

For the demo page's Dev Wallet when the node sends no CORS headers. Only POST, only JSON-RPC
request bodies (one request or a batch) of at most 64 KiB.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .config import EngineConfig

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024
MAX_BATCH = 100
UPSTREAM_TIMEOUT_S = 30.0


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
    network = config.dev_network(request.path_params["chainId"])
    if network is None:
        return _rpc_error(404, -32601, "no dev chain with this id")
    body = await _read_body(request)
    if body is None:
        return _rpc_error(413, -32600, f"request bodies are at most {MAX_BODY_BYTES} bytes")
    try:
        value = json.loads(body)
    except ValueError:
        return _rpc_error(400, -32700, "parse error")
    if not _valid_body(value):
        return _rpc_error(400, -32600, "invalid request")
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
