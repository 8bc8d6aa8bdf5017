"""JSON-RPC 2.0 payloads as the WalletConnect peers exchange them (inside envelopes) and as
clients and relay exchange them (in the clear over the websocket)."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_ID = 2**63 - 1


class PayloadError(ValueError):
    """Text that is not a JSON-RPC request or response."""


class _Base(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class RpcRequest(_Base):
    id: int = Field(ge=0, le=MAX_ID)
    jsonrpc: Literal["2.0"] = "2.0"
    method: str = Field(min_length=1, max_length=128)
    params: object = None


class RpcErrorBody(_Base):
    code: int
    message: str = ""
    data: object = None


class RpcResult(_Base):
    id: int = Field(ge=0, le=MAX_ID)
    jsonrpc: Literal["2.0"] = "2.0"
    result: object


class RpcFailure(_Base):
    id: int = Field(ge=0, le=MAX_ID)
    jsonrpc: Literal["2.0"] = "2.0"
    error: RpcErrorBody


Payload = RpcRequest | RpcResult | RpcFailure


def parse_payload(text: str) -> Payload:
    """A request, a result or an error response; PayloadError for anything else."""
    try:
        raw = json.loads(text)
    except ValueError as error:
        raise PayloadError("not JSON") from error
    if not isinstance(raw, dict):
        raise PayloadError("not a JSON-RPC object")
    try:
        if "method" in raw:
            return RpcRequest.model_validate(raw)
        if "error" in raw:
            return RpcFailure.model_validate(raw)
        if "result" in raw:
            return RpcResult.model_validate(raw)
    except ValidationError as error:
        raise PayloadError(f"invalid JSON-RPC payload: {error.error_count()} error(s)") from error
    raise PayloadError("neither a request nor a response")


def request(id: int, method: str, params: object) -> str:
    return dumps({"id": id, "jsonrpc": "2.0", "method": method, "params": params})


def result(id: int, value: object) -> str:
    return dumps({"id": id, "jsonrpc": "2.0", "result": value})


def failure(id: int, code: int, message: str) -> str:
    return dumps({"id": id, "jsonrpc": "2.0", "error": {"code": code, "message": message}})


def dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))
