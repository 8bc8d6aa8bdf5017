"""Hosted Blockchain API client: the exact requests it sends (behaviour.md §7)."""

from __future__ import annotations

import httpx

from modalcore.services.backend.blockchain_api import BlockchainApi


async def test_balance_call_sends_project_sdk_and_chain_parameters() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"balances": []})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        api = BlockchainApi(http, "https://rpc.example/", "proj1")
        result = await api.balance("0xabc", "eip155:1", force_update="eip155:1:0xdef")
    assert result == {"balances": []}
    request = seen[0]
    assert request.method == "GET"
    assert request.url.path == "/v1/account/0xabc/balance"
    assert dict(request.url.params) == {
        "projectId": "proj1", "st": "html-wagmi-4.2.2", "sv": "4",
        "currency": "usd", "chainId": "eip155:1", "forceUpdate": "eip155:1:0xdef",
    }


async def test_history_call_skips_empty_parameters() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"data": [], "next": None})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        api = BlockchainApi(http, "https://rpc.example", "proj1")
        await api.history("0xabc", cursor=None, chain_id="eip155:1")
    assert seen[0].url.path == "/v1/account/0xabc/history"
    assert dict(seen[0].url.params) == {"projectId": "proj1", "st": "html-wagmi-4.2.2", "sv": "4",
                                        "chainId": "eip155:1"}


async def test_non_200_raises_with_the_status_code() -> None:
    import pytest

    from modalcore.services.backend.blockchain_api import BlockchainApiError

    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(503))) as http:
        api = BlockchainApi(http, "https://rpc.example", "p")
        with pytest.raises(BlockchainApiError, match="^HTTP status code: 503$"):
            await api.balance("0xabc", "eip155:1")
