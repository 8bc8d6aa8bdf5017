"""Plain HTTP: health, the renderer's static files, the dev-chain JSON-RPC proxy."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from modalcore.testing import RunningServer, make_test_config, serve_app, start_server


async def fake_node(request: Request) -> JSONResponse:
    body = await request.json()
    return JSONResponse({"jsonrpc": "2.0", "id": body["id"], "result": {"echo": body["method"]}})


@pytest.fixture(scope="module")
def upstream() -> Iterator[RunningServer]:
    with serve_app(Starlette(routes=[Route("/", fake_node, methods=["POST"])])) as server:
        yield server


@pytest.fixture(scope="module")
def server(upstream: RunningServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    static = tmp_path_factory.mktemp("dist")
    (static / "index.html").write_text("<!doctype html><title>demo</title>")
    (static / "modal.js").write_text("console.log('modal')")
    native = {"name": "Ether", "symbol": "ETH"}
    config = make_test_config(
        static_dir=str(static),
        networks={
            "eip155:31337": {"name": "Dev", "rpc": [upstream.http_url + "/"], "native": native,
                             "dev": True},
            "eip155:31339": {"name": "Down", "rpc": ["http://127.0.0.1:9/"], "native": native,
                             "dev": True},
            "eip155:1": {"name": "Ethereum", "rpc": [upstream.http_url + "/"], "native": native},
        },
    )
    with start_server(config) as running:
        yield running


def get(server: RunningServer, path: str) -> httpx.Response:
    return httpx.get(server.http_url + path, timeout=5)


def post(server: RunningServer, path: str, body: Any, **kwargs: Any) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(server.http_url + path, content=content, timeout=5,
                      headers={"content-type": "application/json"}, **kwargs)


def test_healthz(server: RunningServer) -> None:
    response = get(server, "/healthz")
    assert response.status_code == 200
    assert response.json() == {"ok": True, "sessions": 0}


def test_index_and_static_files(server: RunningServer) -> None:
    assert "<title>demo</title>" in get(server, "/").text
    script = get(server, "/static/modal.js")
    assert script.status_code == 200 and "modal" in script.text
    assert get(server, "/static/missing.js").status_code == 404


def test_index_says_how_to_build_when_missing(tmp_path: Path) -> None:
    with start_server(make_test_config(static_dir=str(tmp_path / "nothing"))) as bare:
        response = get(bare, "/")
    assert response.status_code == 200 and "make renderer" in response.text


def test_devchain_proxy_forwards_json_rpc(server: RunningServer) -> None:
    response = post(server, "/devchain/31337", {"jsonrpc": "2.0", "id": 7, "method": "eth_chainId"})
    assert response.status_code == 200
    assert response.json() == {"jsonrpc": "2.0", "id": 7, "result": {"echo": "eth_chainId"}}


def test_devchain_proxy_refusals(server: RunningServer) -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId"}
    assert httpx.get(server.http_url + "/devchain/31337", timeout=5).status_code == 405
    assert post(server, "/devchain/1", request).status_code == 404  # not a dev chain
    assert post(server, "/devchain/999", request).status_code == 404
    assert post(server, "/devchain/31337", b"{not json").status_code == 400
    assert post(server, "/devchain/31337", {"method": "x"}).status_code == 400
    assert post(server, "/devchain/31337", [1, 2]).status_code == 400
    big = {**request, "params": ["x" * 70_000]}
    assert post(server, "/devchain/31337", big).status_code == 413
    down = post(server, "/devchain/31339", request)
    assert down.status_code == 502 and down.json()["error"]["code"] == -32603
