"""The quote-provider interface over the hosted /v1/convert/* API: CAIP-10 in, the hosted
answers' shapes out; and which provider serves which network."""

from __future__ import annotations

from collections.abc import Mapping

import json
from decimal import Decimal

import httpx
import pytest

from modalcore.services.backend.blockchain_api import BlockchainApiError
from modalcore.services.backend.swap.convert_api import ConvertApi
from modalcore.services.backend.swap.hosted_provider import HostedSwapProvider
from modalcore.services.backend.swap.select import swap_provider
from modalcore.services.domain.swap_types import InsufficientLiquidity, NATIVE, NOT_SUPPORTED_SWAPS, Quote, SwapNotSupported
from modalcore.services.backend.swap.uniswap_v2 import UniswapV2Market, UniswapV2Provider

USER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
ROUTER = "0x1111111254EEB25477B68fb85Ed929f73A960582"
NATIVE_CAIP = "eip155:8453:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"


def hosted(answers: Mapping[str, object], seen: list[httpx.Request]) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=answers[request.url.path])

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_quote_sends_caip10_and_applies_slippage_locally() -> None:
    seen: list[httpx.Request] = []
    answers = {"/v1/convert/quotes": {"quotes": [{"id": "q", "fromAmount": "10", "toAmount": "2000000"}]}}
    async with hosted(answers, seen) as http:
        provider = HostedSwapProvider(ConvertApi(http, "https://rpc.example", "p"), 8453)
        quote = await provider.quote(NATIVE, USDC, 10**15, slippage=Decimal("0.5"), user=USER)
    assert (quote.amount_out, quote.min_out, quote.price_impact) == (2_000_000, 1_990_000, None)
    params = seen[0].url.params
    assert (params["from"], params["to"], params["userAddress"]) == (
        NATIVE_CAIP, f"eip155:8453:{USDC}", f"eip155:8453:{USER}")


async def test_no_quote_is_insufficient_liquidity() -> None:
    async with hosted({"/v1/convert/quotes": {"quotes": []}}, []) as http:
        provider = HostedSwapProvider(ConvertApi(http, "https://rpc.example", "p"), 1)
        with pytest.raises(InsufficientLiquidity, match="^Insufficient liquidity$"):
            await provider.quote(USDC, NATIVE, 5)


async def test_approve_and_swap_come_from_the_build_calls() -> None:
    seen: list[httpx.Request] = []
    answers = {
        "/v1/convert/quotes": {"quotes": [{"toAmount": "7"}]},
        "/v1/convert/allowance": {"allowance": "3"},
        "/v1/convert/build-approve": {"tx": {"from": f"eip155:1:{USER}", "to": f"eip155:1:{USDC}",
                                             "data": "0x095ea7b3", "value": "0"}},
        "/v1/convert/build-transaction": {"tx": {"from": f"eip155:1:{USER}", "to": f"eip155:1:{ROUTER}",
                                                 "data": "0x12aa3caf", "amount": "0"}},
    }
    async with hosted(answers, seen) as http:
        provider = HostedSwapProvider(ConvertApi(http, "https://rpc.example", "p"), 1)
        quote = await provider.quote(USDC, NATIVE, 100, user=USER)
        assert await provider.allowance(USDC, USER) == 3
        approve = await provider.approve_tx(quote, USER)
        swap = await provider.swap_tx(quote, USER, deadline_s=0)
    assert approve.to_params() == {"from": USER, "to": USDC, "data": "0x095ea7b3", "value": "0x0"}
    assert swap.to_params() == {"from": USER, "to": ROUTER, "data": "0x12aa3caf", "value": "0x0"}
    assert json.loads(seen[-1].content)["eip155"] == {"slippage": "1"}


async def test_an_unexpected_answer_is_a_typed_error() -> None:
    async with hosted({"/v1/convert/build-transaction": {"tx": {"to": "nonsense", "data": "0x"}},
                       "/v1/convert/quotes": {"quotes": [{"toAmount": "many"}]}}, []) as http:
        provider = HostedSwapProvider(ConvertApi(http, "https://rpc.example", "p"), 1)
        with pytest.raises(BlockchainApiError, match="^The swap service answered something unexpected$"):
            await provider.quote(USDC, NATIVE, 100)
        quote = Quote(1, USDC, NATIVE, 100, 7, 6, Decimal(1), None)
        with pytest.raises(BlockchainApiError, match="^The swap service answered something unexpected$"):
            await provider.swap_tx(quote, USER, deadline_s=0)


async def test_each_network_gets_its_provider() -> None:
    market = UniswapV2Market(31337, ROUTER, USDC, USER)
    async with httpx.AsyncClient() as http:
        api = ConvertApi(http, "https://rpc.example", "p")
        assert isinstance(swap_provider("eip155:31337", http, rpc_url="http://127.0.0.1:1", market=market),
                          UniswapV2Provider)
        assert isinstance(swap_provider("eip155:8453", http, hosted=api), HostedSwapProvider)
        for network, kwargs in [("eip155:31338", {"market": market, "rpc_url": "http://x"}),
                                ("eip155:11155111", {"hosted": api}),
                                ("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", {"hosted": api}),
                                ("eip155:1", {})]:
            with pytest.raises(SwapNotSupported, match=f"^{NOT_SUPPORTED_SWAPS}$"):
                swap_provider(network, http, **kwargs)  # type: ignore[arg-type]
