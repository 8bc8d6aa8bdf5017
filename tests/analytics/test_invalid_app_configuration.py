"""behaviour.md §8 alerts: the analytics API answering HTTP 403 (this origin is not on the project's
allowlist) shows 'Invalid App Configuration' in the visitor's modal, once per session."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from modalcore import samples
from modalcore.analytics.hosted import HostedAnalyticsSink
from modalcore.enginetest import Harness
from modalcore.rules import texts
from modalcore.runtime.clock import FakeClock, RealClock
from modalcore.slices.alerts import AnalyticsForbidden
from modalcore_testing import RunningServer, make_test_config, serve_app, start_server
from modalcore.wire.nodes import Node

from .test_hosted_analytics import ENDPOINT, Endpoint, event


class Forbidding(Endpoint):
    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/e":
            self.seen.append(request)
            return httpx.Response(403, json={})
        return super().__call__(request)


def test_rule_a_403_from_the_analytics_api_names_the_session_to_alert() -> None:
    told: list[str] = []

    async def run(endpoint: Endpoint) -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(endpoint)) as http:
            sink = HostedAnalyticsSink(ENDPOINT, FakeClock(), http=http, on_forbidden=told.append)
            sink.track(event("MODAL_OPEN"))
            await sink.flush()

    asyncio.run(run(Endpoint()))
    assert told == []  # a 200 alerts nobody
    asyncio.run(run(Forbidding()))
    assert told == ["s1"]


def alert(h: Harness) -> Node | None:
    return h.find("alert/app-config")


def test_rule_the_alert_says_invalid_app_configuration_once_per_session() -> None:
    h = Harness.from_join(samples.join())
    h.host("open")
    assert alert(h) is None
    h.deliver(AnalyticsForbidden())
    shown = alert(h)
    assert shown is not None and shown.t == "alert"
    assert shown.p["title"] == texts.INVALID_APP_CONFIGURATION == "Invalid App Configuration"
    assert "allowlist" in shown.p["message"] and "http://localhost:8000" in shown.p["message"]
    assert shown.p["variant"] == "error" and "close" in shown.p["on"]
    h.intent("alert/app-config", "close")
    assert alert(h) is None
    h.deliver(AnalyticsForbidden())  # the next 403 of this session: shown once already
    assert alert(h) is None


def test_rule_the_alert_is_translated_like_every_text() -> None:
    h = Harness.from_join(samples.join(locale="de"))
    h.host("open")
    h.deliver(AnalyticsForbidden())
    assert alert(h).p["title"] == "Ungültige App-Konfiguration"  # type: ignore[union-attr]


def test_rule_a_live_engine_shows_the_alert_when_the_analytics_api_refuses_the_origin() -> None:
    posts: list[dict[str, Any]] = []

    async def config(request: Request) -> Response:
        return JSONResponse({"isAnalyticsEnabled": True})

    async def post(request: Request) -> Response:
        posts.append(await request.json())
        return JSONResponse({"error": "origin not allowed"}, status_code=403)

    api = Starlette(routes=[Route("/getAnalyticsConfig", config), Route("/e", post, methods=["POST"])])

    async def visit(server: RunningServer) -> list[dict[str, Any]]:
        async with server.client() as client:
            await client.join()
            await client.intent("host", "open")
            return await client.recv_until(lambda f: f["t"] == "patch" and any(
                op[0] == 0 and op[3]["id"] == "alert/app-config" for op in f["ops"]), timeout=10)

    with serve_app(api) as hosted:
        sink = HostedAnalyticsSink(hosted.http_url, RealClock())
        with start_server(make_test_config(), analytics=sink) as server:
            frames = asyncio.run(visit(server))
    inserted = [op[3] for f in frames if f["t"] == "patch" for op in f["ops"]
                if op[0] == 0 and op[3]["id"] == "alert/app-config"]
    assert inserted[0]["p"]["title"] == "Invalid App Configuration"
    assert posts, "the event was posted to the hosted API"
