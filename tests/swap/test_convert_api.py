"""Hosted Blockchain API swap client, `/v1/convert/*` (behaviour.md §7): the exact requests it sends,
and behaviour.md §8's 'Network not supported for Swaps' / '... for Gas Price' before any request."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any

import httpx
import pytest

from modalcore.services.backend.blockchain_api import BlockchainApiError
from modalcore.services.backend.swap.convert_api import ConvertApi
from modalcore.services.backend.swap.networks import SUPPORTED_SWAP_CHAINS
from modalcore.services.domain.swap_types import NOT_SUPPORTED_GAS_PRICE, NOT_SUPPORTED_SWAPS, SwapNotSupported
from ..hosted_http import SDK_PARAMS, recording_http

SDK = SDK_PARAMS
USER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
ETH = "eip155:1:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
USDC = "eip155:1:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"


async def sent(call: Callable[[ConvertApi], Awaitable[Any]], answer: Any = None,
               status: int = 200) -> tuple[list[httpx.Request], Any]:
    async with recording_http(answer, status) as (seen, http):
        result = await call(ConvertApi(http, "https://rpc.example/", "proj1"))
    return seen, result


async def test_tokens_sends_the_chain_id() -> None:
    seen, result = await sent(lambda api: api.tokens("eip155:1"), {"tokens": []})
    assert result == {"tokens": []}
    assert (seen[0].method, seen[0].url.path) == ("GET", "/v1/convert/tokens")
    assert dict(seen[0].url.params) == {**SDK, "chainId": "eip155:1"}


async def test_quotes_sends_amount_user_from_to_and_gas_price() -> None:
    seen, _ = await sent(lambda api: api.quotes(10**18, USER, ETH, USDC, gas_price=30_000_000_000))
    assert (seen[0].method, seen[0].url.path) == ("GET", "/v1/convert/quotes")
    assert dict(seen[0].url.params) == {**SDK, "amount": "1000000000000000000", "userAddress": USER,
                                        "from": ETH, "to": USDC, "gasPrice": "30000000000"}


async def test_quotes_without_a_gas_price_skips_it() -> None:
    seen, _ = await sent(lambda api: api.quotes(5, USER, ETH, USDC))
    assert "gasPrice" not in seen[0].url.params


async def test_allowance_sends_token_and_user() -> None:
    seen, result = await sent(lambda api: api.allowance(USDC, USER), {"allowance": "0"})
    assert result == {"allowance": "0"}
    assert seen[0].url.path == "/v1/convert/allowance"
    assert dict(seen[0].url.params) == {**SDK, "tokenAddress": USDC, "userAddress": USER}


async def test_gas_price_sends_the_chain_id() -> None:
    seen, _ = await sent(lambda api: api.gas_price("eip155:8453"))
    assert seen[0].url.path == "/v1/convert/gas-price"
    assert dict(seen[0].url.params) == {**SDK, "chainId": "eip155:8453"}


async def test_build_approve_sends_user_from_and_to() -> None:
    seen, _ = await sent(lambda api: api.build_approve(USER, USDC, ETH))
    assert (seen[0].method, seen[0].url.path) == ("GET", "/v1/convert/build-approve")
    assert dict(seen[0].url.params) == {**SDK, "userAddress": USER, "from": USDC, "to": ETH}


async def test_build_transaction_posts_amount_slippage_and_project() -> None:
    seen, _ = await sent(lambda api: api.build_transaction(
        2500, USDC, ETH, USER, slippage=Decimal("0.5"), disable_estimate=True))
    request = seen[0]
    assert (request.method, request.url.path) == ("POST", "/v1/convert/build-transaction")
    assert dict(request.url.params) == SDK
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.content) == {
        "amount": "2500", "eip155": {"slippage": "0.5"}, "from": USDC, "to": ETH,
        "userAddress": USER, "disableEstimate": True, "projectId": "proj1"}


async def test_build_transaction_defaults_to_1_percent_slippage() -> None:
    seen, _ = await sent(lambda api: api.build_transaction(1, ETH, USDC, USER))
    body = json.loads(seen[0].content)
    assert body["eip155"] == {"slippage": "1"} and body["disableEstimate"] is False


def test_the_supported_swap_networks_are_spec_9s() -> None:
    assert SUPPORTED_SWAP_CHAINS == {1, 42161, 10, 324, 8453, 56, 137, 100, 43114, 250, 8217,
                                     1313161554}


def recording(seen: list[httpx.Request]) -> Callable[[httpx.Request], httpx.Response]:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200)

    return handler


@pytest.mark.parametrize("call", [
    lambda api: api.tokens("eip155:31337"),
    lambda api: api.quotes(1, USER, "eip155:5:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", USDC),
    lambda api: api.allowance("eip155:11155111:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", USER),
    lambda api: api.build_approve(USER, "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:So11", USDC),
    lambda api: api.build_transaction(1, "eip155:31338:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", USDC, USER),
])
async def test_other_networks_are_not_supported_for_swaps_and_nothing_is_sent(
    call: Callable[[ConvertApi], Awaitable[Any]]
) -> None:
    seen: list[httpx.Request] = []
    async with httpx.AsyncClient(transport=httpx.MockTransport(recording(seen))) as http:
        with pytest.raises(SwapNotSupported, match=f"^{NOT_SUPPORTED_SWAPS}$"):
            await call(ConvertApi(http, "https://rpc.example", "p"))
    assert seen == []


async def test_gas_price_on_another_network_is_not_supported_for_gas_price() -> None:
    seen: list[httpx.Request] = []
    async with httpx.AsyncClient(transport=httpx.MockTransport(recording(seen))) as http:
        with pytest.raises(SwapNotSupported, match=f"^{NOT_SUPPORTED_GAS_PRICE}$"):
            await ConvertApi(http, "https://rpc.example", "p").gas_price("eip155:31337")
    assert seen == []


async def test_non_200_raises_with_the_status_code() -> None:
    with pytest.raises(BlockchainApiError, match="^HTTP status code: 429$"):
        await sent(lambda api: api.tokens("eip155:1"), status=429)
    with pytest.raises(BlockchainApiError, match="^HTTP status code: 500$"):
        await sent(lambda api: api.build_transaction(1, ETH, USDC, USER), status=500)
