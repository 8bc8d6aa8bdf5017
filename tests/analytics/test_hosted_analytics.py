"""The hosted analytics client (issue 20, part 3; behaviour.md §7): the exact requests it sends."""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from typing import Any

import httpx

from modalcore.analytics.events import event_id
from modalcore.analytics.hosted import HostedAnalyticsSink
from modalcore.ports.analytics import TrackedEvent
from modalcore.runtime.clock import FakeClock

ENDPOINT = "https://pulse.example/"
ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
SDK = {"projectId": "proj1", "st": "html-wagmi-4.2.2", "sv": "4"}


def event(name: str, at: int = 1_700_000_000_000, kind: str = "track",
          props: dict[str, Any] | None = None, project: str = "proj1") -> TrackedEvent:
    return TrackedEvent("s1", project, name, at, props or {}, event_id=event_id("s1", at, name, 0),
                        address=ADDRESS, url="https://app.example.com", kind=kind)


class Endpoint:
    def __init__(self, enabled: Any = True, config_status: int = 200) -> None:
        self.seen: list[httpx.Request] = []
        self.enabled, self.config_status = enabled, config_status

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if request.url.path == "/getAnalyticsConfig":
            return httpx.Response(self.config_status, json={"isAnalyticsEnabled": self.enabled})
        return httpx.Response(200, json={})

    def posts(self) -> list[httpx.Request]:
        return [r for r in self.seen if r.url.path == "/e"]


async def send(endpoint: Endpoint, events: list[TrackedEvent], *, test: bool = False,
               clock: FakeClock | None = None, advance: dict[int, int] | None = None) -> None:
    clock = clock or FakeClock()
    async with httpx.AsyncClient(transport=httpx.MockTransport(endpoint)) as http:
        sink = HostedAnalyticsSink(ENDPOINT, clock, test=test, http=http)
        for index, item in enumerate(events):
            if advance and index in advance:
                clock.advance(advance[index])
            sink.track(item)
        await sink.flush()


def test_rule_an_event_is_posted_to_e_with_sdk_query_and_the_spec_body_fields() -> None:
    endpoint = Endpoint()
    props = {"isSmartAccount": False, "network": "eip155:1", "token": "ETH", "amount": 0.1}
    asyncio.run(send(endpoint, [event("SEND_INITIATED", props=props)]))
    config, post = endpoint.seen
    assert (config.method, config.url.path, dict(config.url.params)) == (
        "GET", "/getAnalyticsConfig", SDK)
    assert (post.method, post.url.host, post.url.path) == ("POST", "pulse.example", "/e")
    assert dict(post.url.params) == SDK
    assert post.headers["content-type"] == "application/json"
    assert json.loads(post.content) == {
        "eventId": event_id("s1", 1_700_000_000_000, "SEND_INITIATED", 0),
        "url": "https://app.example.com",
        "domain": "app.example.com",
        "timestamp": 1_700_000_000_000,
        "props": {"type": "track", "event": "SEND_INITIATED", "properties": props,
                  "address": ADDRESS},
    }


def test_rule_modal_created_is_never_posted() -> None:
    endpoint = Endpoint()
    asyncio.run(send(endpoint, [event("MODAL_CREATED"), event("SEND_SUCCESS")]))
    assert [json.loads(r.content)["props"]["event"] for r in endpoint.posts()] == ["SEND_SUCCESS"]


def test_rule_the_analytics_config_is_asked_once_per_project() -> None:
    endpoint = Endpoint()
    asyncio.run(send(endpoint, [event("SIWX_AUTH_SUCCESS"), event("CLICK_CANCEL_SIWX"),
                                event("SEND_SUCCESS", project="proj2")]))
    configs = [r for r in endpoint.seen if r.url.path == "/getAnalyticsConfig"]
    assert [r.url.params["projectId"] for r in configs] == ["proj1", "proj2"]
    assert len(endpoint.posts()) == 3


def test_rule_a_disabled_or_failing_analytics_config_sends_no_event() -> None:
    for endpoint in (Endpoint(enabled=False), Endpoint(config_status=500),
                     Endpoint(enabled="yes")):
        asyncio.run(send(endpoint, [event("SEND_INITIATED"), event("SEND_SUCCESS")]))
        assert endpoint.posts() == []
        assert len(endpoint.seen) == 1  # asked once, then analytics stays off


def error(at: int = 0) -> TrackedEvent:
    props = {"type": "error", "event": "PROCESS_FRAME", "errorType": "KeyError",
             "errorMessage": "'x'", "stackTrace": "Traceback ..."}
    return event("ERROR", kind="error", props=props)


def test_rule_error_telemetry_is_sent_only_when_the_test_flag_is_on() -> None:
    off = Endpoint()
    asyncio.run(send(off, [error()]))
    assert off.seen == []
    on = Endpoint()
    asyncio.run(send(on, [error()], test=True))
    (post,) = on.posts()
    assert json.loads(post.content)["props"] == {
        "type": "error", "event": "PROCESS_FRAME", "errorType": "KeyError",
        "errorMessage": "'x'", "stackTrace": "Traceback ...", "address": ADDRESS}


def test_rule_error_telemetry_is_capped_at_five_per_sixty_seconds() -> None:
    endpoint = Endpoint()
    # 7 errors now, then 2 more 59.999 s after the first, then 3 once 60 s have passed
    asyncio.run(send(endpoint, [error() for _ in range(12)], test=True,
                     advance={7: 59_999, 9: 1}))
    assert len(endpoint.posts()) == 5 + 0 + 3


def test_event_ids_are_version_4_uuids_of_the_inputs_digest() -> None:
    """An event's id is the first 16 bytes of sha256(session|at|event|index) as a UUID v4, so a
    replay posts the same ids and the collector sees valid UUIDs."""
    for index, (session, at, name) in enumerate([("s1", 0, "MODAL_OPEN"), ("s-é", 1_700_000_000_123, "X"),
                                                 ("", 2**41, "SEND_SUCCESS")]):
        digest = hashlib.sha256(f"{session}|{at}|{name}|{index}".encode()).digest()[:16]
        made = event_id(session, at, name, index)
        assert made == str(uuid.UUID(bytes=digest, version=4))
        assert uuid.UUID(made).version == 4
    assert event_id("s1", 1, "A", 0) != event_id("s1", 1, "A", 1)
