"""The dev-chain proxy (`/devchain/{chainId}`): off unless turned on; then only allowed origins,
`application/json` bodies and the Dev Wallet's methods reach the node."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from modalcore.server.config import default_config
from modalcore_dev.devproxy import ALLOWED_METHODS, SOLANA_METHODS
from modalcore_testing import TEST_ORIGIN, RunningServer, make_test_config, serve_app, start_server

REPO = Path(__file__).resolve().parents[2]
SOLANA_DEV = "solana:CmpNeggWJ4JaWJeJ8YKN1Zypmk7uvQq3"
SOLANA_MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
NATIVE = {"name": "Ether", "symbol": "ETH"}
REQUEST = {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId"}
SEND = {"jsonrpc": "2.0", "id": 2, "method": "eth_sendTransaction",
        "params": [{"from": "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
                    "to": "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", "value": "0x1"}]}

received: list[Any] = []  # every body the fake node was sent


async def fake_node(request: Request) -> JSONResponse:
    body = await request.json()
    received.append(body)
    items = body if isinstance(body, list) else [body]
    answers = [{"jsonrpc": "2.0", "id": item["id"], "result": {"echo": item["method"]}}
               for item in items]
    return JSONResponse(answers if isinstance(body, list) else answers[0])


@pytest.fixture(scope="module")
def upstream() -> Iterator[RunningServer]:
    with serve_app(Starlette(routes=[Route("/", fake_node, methods=["POST"])])) as server:
        yield server


def networks(upstream: RunningServer) -> dict[str, Any]:
    return {
        "eip155:31337": {"name": "Dev", "rpc": [upstream.http_url + "/"], "native": NATIVE,
                         "dev": True},
        "eip155:31339": {"name": "Down", "rpc": ["http://127.0.0.1:9/"], "native": NATIVE,
                         "dev": True},
        "eip155:1": {"name": "Ethereum", "rpc": [upstream.http_url + "/"], "native": NATIVE},
        SOLANA_DEV: {"name": "Solana Local", "rpc": [upstream.http_url + "/"], "dev": True,
                     "native": {"name": "Solana", "symbol": "SOL", "decimals": 9}},
        SOLANA_MAINNET: {"name": "Solana", "rpc": [upstream.http_url + "/"],
                         "native": {"name": "Solana", "symbol": "SOL", "decimals": 9}},
    }


@pytest.fixture(scope="module")
def server(upstream: RunningServer) -> Iterator[RunningServer]:
    config = make_test_config(networks=networks(upstream), devchain_proxy=True)
    with start_server(config) as running:
        yield running


@pytest.fixture(autouse=True)
def fresh_log() -> None:
    received.clear()


def post(server: RunningServer, path: str, body: Any, *, origin: str | None = TEST_ORIGIN,
         content_type: str = "application/json") -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"content-type": content_type}
    if origin is not None:
        headers["origin"] = origin
    return httpx.post(server.http_url + path, content=content, timeout=5, headers=headers)


def test_proxy_forwards_the_dev_wallets_requests_from_an_allowed_origin(
    server: RunningServer,
) -> None:
    response = post(server, "/devchain/31337", {**REQUEST, "id": 7})
    assert response.status_code == 200
    assert response.json() == {"jsonrpc": "2.0", "id": 7, "result": {"echo": "eth_chainId"}}
    # the default allowed ancestors count too (the demo page is served from 127.0.0.1)
    sent = post(server, "/devchain/31337", SEND, origin="http://127.0.0.1:8700",
                content_type="application/json; charset=utf-8")
    assert sent.json()["result"] == {"echo": "eth_sendTransaction"}
    batch = post(server, "/devchain/31337", [REQUEST, {**REQUEST, "id": 3, "method": "eth_call"}])
    assert [a["result"]["echo"] for a in batch.json()] == ["eth_chainId", "eth_call"]


def test_proxy_refuses_cross_site_writes(server: RunningServer) -> None:
    """A page on another site can POST text/plain without a preflight: nothing reaches the node."""
    for origin in ["https://evil.example", "null", "https://app.example.com.evil.example", None]:
        response = post(server, "/devchain/31337", SEND, origin=origin)
        assert response.status_code == 403, origin
        assert response.json()["error"]["message"] == "origin not allowed"
    for content_type in ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                         "multipart/form-data; boundary=x", ""]:
        response = post(server, "/devchain/31337", SEND, content_type=content_type)
        assert response.status_code == 415, content_type
    assert received == []


def test_proxy_allows_only_the_dev_wallets_methods(server: RunningServer) -> None:
    for method in ["hardhat_setBalance", "hardhat_impersonateAccount", "evm_mine", "evm_revert",
                   "eth_sendRawTransaction", "personal_unlockAccount", "debug_traceTransaction",
                   "eth_signTransaction"]:
        response = post(server, "/devchain/31337", {**REQUEST, "method": method})
        assert response.status_code == 403, method
        assert response.json()["error"]["code"] == -32601
    # one bad method refuses the whole batch
    batch = [REQUEST, {**REQUEST, "id": 2, "method": "hardhat_setBalance", "params": []}]
    assert post(server, "/devchain/31337", batch).status_code == 403
    assert received == []


def test_the_allow_list_covers_what_the_dev_wallet_sends_to_its_node() -> None:
    source = (REPO / "renderer" / "demo" / "devwallet.ts").read_text()
    sent = set(re.findall(r"this\.(?:forward|rpc)\((?:chain, )?'([A-Za-z0-9_]+)'", source))
    assert {"eth_accounts", "personal_sign", "eth_sendTransaction"} <= sent
    assert sent <= ALLOWED_METHODS
    assert not any(m.startswith(("hardhat_", "evm_")) for m in ALLOWED_METHODS)


def test_proxy_refusals(server: RunningServer) -> None:
    assert httpx.get(server.http_url + "/devchain/31337", timeout=5).status_code == 405
    assert post(server, "/devchain/1", REQUEST).status_code == 404  # not a dev chain
    assert post(server, "/devchain/999", REQUEST).status_code == 404
    assert post(server, "/devchain/31337", b"{not json").status_code == 400
    assert post(server, "/devchain/31337", b"[" * 20_000).status_code == 400
    assert post(server, "/devchain/31337", {"method": "x"}).status_code == 400
    assert post(server, "/devchain/31337", [1, 2]).status_code == 400
    big = {**REQUEST, "params": ["x" * 70_000]}
    assert post(server, "/devchain/31337", big).status_code == 413
    down = post(server, "/devchain/31339", REQUEST)
    assert down.status_code == 502 and down.json()["error"]["code"] == -32603


def test_proxy_is_off_unless_the_operator_turns_it_on(upstream: RunningServer) -> None:
    assert default_config().devchain_proxy is False  # what `serve` without --config runs
    with start_server(make_test_config(networks=networks(upstream))) as plain:
        assert plain.app.state.config.dev_network("31337") is not None
        response = post(plain, "/devchain/31337", REQUEST)
        assert response.status_code == 404
    assert received == []


def test_the_solana_allow_list_covers_what_the_solana_dev_wallet_sends() -> None:
    source = (REPO / "renderer" / "demo" / "solwallet.ts").read_text()
    sent = set(re.findall(r"method: '([a-z][A-Za-z0-9_]+)'", source))
    assert sent == {"sendTransaction"} and sent <= SOLANA_METHODS
    assert not SOLANA_METHODS & ALLOWED_METHODS


def test_a_solana_dev_chain_takes_the_solana_dev_wallets_methods_only(server: RunningServer) -> None:
    """The Solana Dev Wallet submits what it signed (solana:signAndSendTransaction) through
    /devchain/<genesis hash prefix>; an EVM method, an airdrop, or a non-dev Solana network is
    refused there, and a Solana method on an EVM dev chain too."""
    path = "/devchain/" + SOLANA_DEV.split(":", 1)[1]
    body = {"jsonrpc": "2.0", "id": 4, "method": "sendTransaction", "params": ["AQ==", {"encoding": "base64"}]}
    assert post(server, path, body).json()["result"] == {"echo": "sendTransaction"}
    for method in ["requestAirdrop", "eth_sendTransaction", "eth_chainId"]:
        assert post(server, path, {**body, "method": method}).status_code == 403, method
    assert post(server, "/devchain/31337", body).status_code == 403  # not an EVM method
    assert post(server, "/devchain/" + SOLANA_MAINNET.split(":", 1)[1], body).status_code == 404  # not a dev chain
    assert [item["method"] for item in received] == ["sendTransaction"]
