"""The engine's `swap_quote` service on the production path (issue 16 "Providers"): a network
of behaviour.md §9's list without a local market is quoted through the hosted `/v1/convert/*` API (the
requests checked), with the approve and swap transactions it builds; a network outside the list
is refused with behaviour.md §8's 'Network not supported for Swaps' before any request."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from modalcore.core.services import ServiceError
from modalcore.services.backend.swap.convert_api import ConvertApi
from modalcore.services.backend.swap.service import swap_quote

USER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
ROUTER = "0x1111111254EEB25477B68fb85Ed929f73A960582"


def transport(seen: list[httpx.Request]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        path = request.url.path
        if path == "/rpc":  # the chain's JSON-RPC: the latest block, the gas price, a gas estimate
            calls = json.loads(request.content)
            answers = {"eth_getBlockByNumber": {"timestamp": hex(1_700_000_000)}, "eth_gasPrice": hex(10**9),
                       "eth_estimateGas": hex(46_000)}
            return httpx.Response(200, json=[{"jsonrpc": "2.0", "id": c["id"], "result": answers[c["method"]]}
                                             for c in calls])
        hosted: dict[str, dict[str, Any]] = {
            "/v1/convert/quotes": {"quotes": [{"toAmount": "2990000000"}]},
            "/v1/convert/allowance": {"allowance": "0"},
            "/v1/convert/build-approve": {"tx": {"to": f"eip155:1:{USDC}", "data": "0x095ea7b3"}},
            "/v1/convert/build-transaction": {"tx": {"to": f"eip155:1:{ROUTER}", "data": "0x12aa3caf", "amount": "0"}},
        }
        return httpx.Response(200, json=hosted[path])

    return httpx.MockTransport(handler)


async def test_a_swap_network_without_a_local_market_is_quoted_by_the_hosted_api() -> None:
    seen: list[httpx.Request] = []
    async with httpx.AsyncClient(transport=transport(seen)) as http:
        answer = await swap_quote(http, {}, ConvertApi(http, "https://api.example", "proj1"),
                                  network="eip155:1", rpc_url="https://node.example/rpc", from_token=USDC,
                                  to_token="native", amount="3000000000", slippage="1", user=USER)
    hosted = [r for r in seen if r.url.path.startswith("/v1/convert/")]
    assert [r.url.path for r in hosted] == ["/v1/convert/quotes", "/v1/convert/allowance",
                                            "/v1/convert/build-approve", "/v1/convert/build-transaction"]
    quotes = dict(hosted[0].url.params)
    assert (quotes["from"], quotes["to"], quotes["amount"], quotes["userAddress"]) == (
        f"eip155:1:{USDC}", "eip155:1:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", "3000000000", f"eip155:1:{USER}")
    built = json.loads(hosted[3].content)
    assert built["eip155"] == {"slippage": "1"} and built["amount"] == "3000000000"
    assert answer["amountOut"] == "2990000000" and answer["minOut"] == str(2990000000 * 99 // 100)
    assert answer["approve"] == {"from": USER, "to": USDC, "data": "0x095ea7b3", "value": "0x0"}
    assert answer["swap"]["to"] == ROUTER and answer["priceImpact"] is None
    assert answer["fee"] == str((46_000 + 200_000) * 10**9)  # the approval's estimate and a typical swap


async def test_a_network_outside_the_swap_list_is_refused_before_any_request() -> None:
    seen: list[httpx.Request] = []
    async with httpx.AsyncClient(transport=transport(seen)) as http:
        with pytest.raises(ServiceError, match="^Network not supported for Swaps$"):
            await swap_quote(http, {}, ConvertApi(http, "https://api.example", "proj1"),
                             network="eip155:11155111", rpc_url="https://node.example/rpc", from_token=USDC,
                             to_token="native", amount="1", slippage="1", user=USER)
    assert seen == []


async def test_without_a_hosted_api_a_network_without_a_market_has_no_swaps() -> None:
    async with httpx.AsyncClient(transport=transport([])) as http:
        with pytest.raises(ServiceError, match="^Network not supported for Swaps$"):
            await swap_quote(http, {}, None, network="eip155:1", rpc_url="https://node.example/rpc",
                             from_token=USDC, to_token="native", amount="1", slippage="1", user=USER)


async def test_the_swap_token_list_comes_from_the_hosted_api_without_the_native_placeholder() -> None:
    from modalcore.services.backend.swap.service import swap_tokens

    answer = {"tokens": [
        {"name": "Ether", "symbol": "ETH", "address": "eip155:1:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", "decimals": 18},
        {"name": "USD Coin", "symbol": "USDC", "address": f"eip155:1:{USDC}", "decimals": 6, "logoUri": "https://i/u.png"},
    ]}
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=answer)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        listed = await swap_tokens(http, {}, ConvertApi(http, "https://api.example", "proj1"), network="eip155:1")
        unlisted = await swap_tokens(http, {}, ConvertApi(http, "https://api.example", "proj1"),
                                     network="eip155:11155111")
    assert listed == {"tokens": [{"address": USDC, "symbol": "USDC", "name": "USD Coin", "decimals": 6,
                                  "icon": "https://i/u.png"}], "supported": True}
    assert unlisted == {"tokens": [], "supported": False}  # a fact about the network, not a failure
    assert [(r.url.path, r.url.params["chainId"]) for r in seen] == [("/v1/convert/tokens", "eip155:1")]


async def test_a_local_market_needs_no_token_list() -> None:
    from modalcore.services.backend.swap.service import swap_tokens
    from modalcore_dev.swap_markets import dev_markets

    async with httpx.AsyncClient(transport=transport([])) as http:
        assert await swap_tokens(http, dev_markets(), None, network="eip155:31337") == {"tokens": [],
                                                                                        "supported": True}
