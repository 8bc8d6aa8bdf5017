"""The name services over the hosted Blockchain API (behaviour.md §7 profile endpoints), the production
path when the operator configures it: the exact requests each service sends, and what it makes
of the answers (a fake server: the hosted API cannot be reached from here)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from modalcore.services.backend.names import name_services
from modalcore.services.backend.profile_api import ProfileApi

from ..hosted_http import SDK_PARAMS

ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
CHAIN = 8453  # Base: coin type 0x80002105 (ENSIP-11)


def services(answers: dict[str, tuple[int, Any]], seen: list[httpx.Request], http_box: list[httpx.AsyncClient]) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        status, body = answers.get(request.url.path, (404, {"reasons": []}))
        return httpx.Response(status, json=body)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    http_box.append(http)
    return name_services(http, hosted=ProfileApi(http, "https://rpc.example", "proj1"), hosted_suffix="reown.id")


async def run(answers: dict[str, tuple[int, Any]], service: str, **args: Any) -> tuple[list[httpx.Request], Any]:
    seen: list[httpx.Request] = []
    box: list[httpx.AsyncClient] = []
    table = services(answers, seen, box)
    try:
        result = await next(s for ref, s in table.items() if ref.name == service)(**args)
    finally:
        await box[0].aclose()
    return seen, result


async def test_an_addresses_name_is_its_reverse_profile_pointing_back() -> None:
    profile = {"name": "alice.reown.id", "addresses": {str(0x80002105): {"address": ADDRESS}}}
    seen, result = await run({f"/v1/profile/reverse/{ADDRESS}": (200, [profile])}, "name_of",
                             chain_id=CHAIN, rpc_url="", registry="", address=ADDRESS)
    assert result == {"name": "alice.reown.id"}
    assert [(r.method, r.url.path, dict(r.url.params)) for r in seen] == [
        ("GET", f"/v1/profile/reverse/{ADDRESS}", {**SDK_PARAMS, "sender": ADDRESS, "apiVersion": "2"})]


async def test_a_name_under_the_suffix_is_looked_up_by_account() -> None:
    profile = {"name": "alice.reown.id", "addresses": {str(0x80002105): {"address": ADDRESS}}}
    seen, result = await run({"/v1/profile/account/alice.reown.id": (200, profile)}, "address_of",
                             chain_id=CHAIN, rpc_url="", registry="", name="Alice.reown.id")
    assert result == {"name": "alice.reown.id", "address": ADDRESS}
    assert [(r.url.path, dict(r.url.params)) for r in seen] == [
        ("/v1/profile/account/alice.reown.id", {**SDK_PARAMS, "apiVersion": "2"})]


async def test_suggestions_send_the_zone_and_say_whether_the_name_is_free() -> None:
    answer = {"suggestions": [{"name": "satoshi.reown.id", "registered": True},
                              {"name": "satoshi1.reown.id", "registered": False},
                              {"name": "satoshi-x.reown.id", "registered": False}]}
    seen, result = await run({"/v1/profile/suggestions/satoshi": (200, answer)}, "name_suggestions",
                             label="satoshi")
    assert dict(seen[0].url.params) == {**SDK_PARAMS, "zone": "reown.id"}
    assert result == {"label": "satoshi", "suffix": ".reown.id", "available": False,
                      "suggestions": ["satoshi1.reown.id", "satoshi-x.reown.id"]}


async def test_registration_posts_the_coin_type_address_message_and_signature() -> None:
    message = '{"name":"satoshi.reown.id","attributes":{},"timestamp":1700000000}'
    seen, result = await run({"/v1/profile/account": (200, {})}, "register_name", label="satoshi",
                             address=ADDRESS, message=message, signature="0xsig", chain_id=CHAIN)
    assert result == {"ok": True, "error": "", "name": "satoshi.reown.id", "address": ADDRESS}
    assert (seen[0].method, seen[0].url.path, dict(seen[0].url.params)) == ("POST", "/v1/profile/account", SDK_PARAMS)
    assert json.loads(seen[0].content) == {"coin_type": 0x80002105, "address": ADDRESS, "message": message,
                                           "signature": "0xsig"}


async def test_a_refused_registration_carries_the_servers_reason_else_spec_words() -> None:
    refused = {"reasons": [{"description": "Name is already taken"}]}
    _, result = await run({"/v1/profile/account": (400, refused)}, "register_name", label="satoshi",
                          address=ADDRESS, message="m", signature="0xsig", chain_id=CHAIN)
    assert result["ok"] is False and result["error"] == "Name is already taken"
    _, result = await run({"/v1/profile/account": (500, {})}, "register_name", label="satoshi",
                          address=ADDRESS, message="m", signature="0xsig", chain_id=CHAIN)
    assert result["error"] == "Error registering name satoshi.reown.id"
    seen, result = await run({}, "register_name", label="abc", address=ADDRESS, message="m",
                             signature="0xsig", chain_id=CHAIN)
    assert seen == [] and result["error"] == "Name must be at least 4 characters"  # never posted
