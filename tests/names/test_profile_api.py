"""Hosted Blockchain API profile client (behaviour.md §7): the exact requests it sends, and behaviour.md §8's
name errors (the server's first reason description, else the default message)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from modalcore.services.backend.profile_api import ProfileApi, ProfileApiError, evm_coin_type
from ..hosted_http import SDK_PARAMS, recording_http

SDK = SDK_PARAMS
ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"


async def sent(call: Callable[[ProfileApi], Awaitable[Any]], answer: Any = None,
               status: int = 200) -> tuple[list[httpx.Request], Any]:
    async with recording_http(answer, status) as (seen, http):
        try:
            result = await call(ProfileApi(http, "https://rpc.example/", "proj1"))
        except ProfileApiError as error:
            result = error
    return seen, result


async def test_account_lookup_sends_api_version_2() -> None:
    seen, result = await sent(lambda api: api.account("alice.reown.id"), {"name": "alice.reown.id"})
    assert result == {"name": "alice.reown.id"}
    assert (seen[0].method, seen[0].url.path) == ("GET", "/v1/profile/account/alice.reown.id")
    assert dict(seen[0].url.params) == {**SDK, "apiVersion": "2"}
    assert seen[0].content == b""


async def test_reverse_lookup_sends_sender_and_api_version() -> None:
    seen, _ = await sent(lambda api: api.reverse(ADDRESS), [])
    assert seen[0].url.path == f"/v1/profile/reverse/{ADDRESS}"
    assert dict(seen[0].url.params) == {**SDK, "sender": ADDRESS, "apiVersion": "2"}
    seen, _ = await sent(lambda api: api.reverse(ADDRESS, sender="0xabc"), [])
    assert seen[0].url.params["sender"] == "0xabc"


async def test_suggestions_send_the_zone() -> None:
    seen, _ = await sent(lambda api: api.suggestions("alice"), {"suggestions": []})
    assert seen[0].url.path == "/v1/profile/suggestions/alice"
    assert dict(seen[0].url.params) == {**SDK, "zone": "reown.id"}
    seen, _ = await sent(lambda api: api.suggestions("alice", zone="wcn.id"), {})
    assert seen[0].url.params["zone"] == "wcn.id"


async def test_register_posts_coin_type_address_message_and_signature() -> None:
    message = json.dumps({"name": "alice.reown.id", "attributes": {}, "timestamp": 1700000000})
    seen, _ = await sent(lambda api: api.register("alice.reown.id", 60, ADDRESS, message, "0xsig"))
    request = seen[0]
    assert (request.method, request.url.path) == ("POST", "/v1/profile/account")
    assert dict(request.url.params) == SDK
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.content) == {"coin_type": 60, "address": ADDRESS, "message": message,
                                           "signature": "0xsig"}


def test_coin_types_follow_ensip_11() -> None:
    assert evm_coin_type(1) == 60
    assert evm_coin_type(8453) == 0x80002105


@pytest.mark.parametrize(("call", "default"), [
    (lambda api: api.account("x.reown.id"), "Error resolving name"),
    (lambda api: api.reverse(ADDRESS), "Error fetching names for address"),
    (lambda api: api.suggestions("x"), "Error fetching name suggestions"),
    (lambda api: api.register("x.reown.id", 60, ADDRESS, "m", "s"), "Error registering name x.reown.id"),
])
async def test_failures_use_the_servers_first_reason_else_the_default(
    call: Callable[[ProfileApi], Awaitable[Any]], default: str
) -> None:
    _, error = await sent(call, {"reasons": [{"description": "Name is already taken"},
                                             {"description": "second"}]}, status=400)
    assert isinstance(error, ProfileApiError) and str(error) == "Name is already taken"
    _, error = await sent(call, {"error": "nope"}, status=500)
    assert isinstance(error, ProfileApiError) and str(error) == default
    _, error = await sent(call, {"reasons": []}, status=404)
    assert str(error) == default


async def test_an_unreachable_server_is_the_default_message() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as http:
        with pytest.raises(ProfileApiError, match="^Error resolving name$"):
            await ProfileApi(http, "https://rpc.example", "p").account("alice.reown.id")


async def test_an_answer_that_is_not_json_is_the_default_message() -> None:
    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(200, text="<html>"))) as http:
        with pytest.raises(ProfileApiError, match="^Error fetching name suggestions$"):
            await ProfileApi(http, "https://rpc.example", "p").suggestions("alice")


async def test_hosted_names_read_the_chains_coin_type_and_check_the_reverse_points_back() -> None:
    from modalcore.services.backend.ens import CachedNames
    from modalcore.services.backend.profile_api import HostedNames

    base = {"name": "alice.reown.id", "addresses": {str(0x80002105): {"address": ADDRESS}}}
    other = {"name": "mallory.reown.id", "addresses": {str(0x80002105): {"address": "0x" + "44" * 20}}}
    answers = {
        "/v1/profile/account/alice.reown.id": base,
        "/v1/profile/account/ghost.reown.id": {"name": "ghost.reown.id", "addresses": {"60": {"address": ADDRESS}}},
        f"/v1/profile/reverse/{ADDRESS}": [other, base],
    }
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=answers[request.url.path])

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        names = HostedNames(ProfileApi(http, "https://rpc.example", "p"), 8453)
        assert await names.address_of("alice.reown.id") == ADDRESS
        assert await names.address_of("ghost.reown.id") is None  # no record for Base's coin type
        assert await names.name_of(ADDRESS) == "alice.reown.id"  # mallory's record points elsewhere
        cached = CachedNames(names)
        assert await cached.name_of(ADDRESS, now_ms=0) == "alice.reown.id"
        assert await cached.name_of(ADDRESS, now_ms=299_999) == "alice.reown.id"
    assert len(seen) == 4 and cached.lookups == 1
