"""The dev chain's HTTP endpoint: JSON-RPC 2.0 over POST, single requests and batches."""

from __future__ import annotations

import json
import logging
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from modalcore_dev.solana_devchain.ledger import DevLedger
from modalcore_dev.solana_devchain.rpc import DevRpc, RpcError

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1024 * 1024
MAX_BATCH = 100
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def _error(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def answer(rpc: DevRpc, item: Any) -> dict[str, Any]:
    if not isinstance(item, dict) or item.get("jsonrpc") != "2.0" or not isinstance(item.get("method"), str):
        return _error(item.get("id") if isinstance(item, dict) else None, INVALID_REQUEST, "Invalid request")
    request_id = item.get("id")
    params = item.get("params", [])
    if not isinstance(params, list):
        return _error(request_id, -32602, "Invalid params: expected an array")
    try:
        result = rpc.call(item["method"], params)
    except RpcError as error:
        return _error(request_id, error.code, error.message, error.data)
    except Exception:  # a dev-chain bug: say so to the caller, keep serving
        log.warning("solana devchain: %s failed", item["method"], exc_info=True)
        return _error(request_id, -32603, "Internal error")
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def create_app(ledger: DevLedger | None = None) -> Starlette:
    rpc = DevRpc(ledger or DevLedger())

    async def endpoint(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return JSONResponse(_error(None, INVALID_REQUEST, "request too large"), status_code=413)
        try:
            payload = json.loads(body)
        except ValueError:
            return JSONResponse(_error(None, PARSE_ERROR, "Parse error"))
        if isinstance(payload, list):
            if not payload or len(payload) > MAX_BATCH:
                return JSONResponse(_error(None, INVALID_REQUEST, f"batch of 1 to {MAX_BATCH} requests"))
            return JSONResponse([answer(rpc, item) for item in payload])
        return JSONResponse(answer(rpc, payload))

    app = Starlette(routes=[Route("/", endpoint, methods=["POST"])])
    app.state.rpc = rpc
    return app
