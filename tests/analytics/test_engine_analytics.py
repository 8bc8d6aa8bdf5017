"""Analytics at the runtime edge (issue 20, part 3): the events a session's inputs yield, their
deterministic ids, the host's `analytics: false`, and the operator's counts page."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from modalcore.analytics.events import AnalyticsObserver
from modalcore.analytics.local import LocalAnalyticsSink
from modalcore.slices.model import initial_model
from modalcore.engine.session import Session
from modalcore.runtime.analytics import MemorySink
from modalcore.runtime.clock import FakeClock
from modalcore.runtime.runner import RunnerDeps, SessionRunner
from modalcore.runtime.services import default_services
from modalcore.slices.options import parse_options
from modalcore.store.memory import MemoryStore
from modalcore_testing import FakeOutlet, make_test_config, start_server
from modalcore.wire.frames import Env

from ..audit.test_audit_log import Browser
from ..devwallet import ADDRESS, DEV_WALLET, WALLET_NODE

OPERATOR = "an-operator-token-of-at-least-32-bytes"


async def drive(options: dict[str, Any], sink: Any) -> None:
    clock = FakeClock()
    model = initial_model("demo", "https://app.example.com",
                          parse_options({"networks": ["eip155:31337"], **options}), Env(),
                          [DEV_WALLET])
    session = Session("s-analytics", model, clock.now_ms())
    services = default_services()
    if options.get("siwx"):  # the real sign-in services, on an in-memory store
        from eth_account import Account

        from modalcore.services.backend.wiring import register_engine_services
        from modalcore.siwx.backend.store import SqliteSiwxStore

        register_engine_services(services, httpx.AsyncClient(), SqliteSiwxStore(":memory:"),
                                 Account.from_key("0x" + "11" * 32))
    deps = RunnerDeps(clock=clock, services=services, analytics=sink,
                      observers=(AnalyticsObserver(sink),))
    runner = SessionRunner(session, deps)
    runner.start()
    outlet = FakeOutlet()
    await runner.attach(outlet, lambda generation: f"t{generation}", resumed=False, last=None)
    browser = Browser(runner, outlet)
    await browser.intent("host", "open")
    clock.advance(1000)
    await browser.intent(WALLET_NODE)
    await browser.answer([ADDRESS.lower()])
    await browser.answer("0x7a69")
    clock.advance(1000)
    if options.get("siwx"):
        await browser.intent("siwx/cancel")
    await browser.wallet_event("disconnect", None)
    await runner.stop()


def test_rule_connect_disconnect_and_modal_events_are_derived_with_the_visitor_address() -> None:
    sink = MemorySink()
    asyncio.run(drive({}, sink))
    names = sink.names()
    assert names[0] == "MODAL_CREATED"
    assert "MODAL_OPEN" in names and "CONNECT_SUCCESS" in names
    assert names.index("CONNECT_SUCCESS") < names.index("DISCONNECT_SUCCESS")
    connect = next(e for e in sink.events if e.event == "CONNECT_SUCCESS")
    assert connect.props == {"method": "browser", "name": "Dev Wallet"}
    assert connect.address == ADDRESS and connect.url == "https://app.example.com"


def test_rule_event_ids_are_derived_deterministically() -> None:
    first, second = MemorySink(), MemorySink()
    asyncio.run(drive({}, first))
    asyncio.run(drive({}, second))
    ids = [e.event_id for e in first.events]
    assert ids == [e.event_id for e in second.events]
    assert len(set(ids)) == len(ids) and all(len(i) == 36 for i in ids)


def test_rule_the_hosts_analytics_false_sends_nothing() -> None:
    sink = MemorySink()
    asyncio.run(drive({"features": {"analytics": False}}, sink))
    assert sink.events == []


def test_rule_the_operator_page_counts_events_per_event_and_per_day() -> None:
    store = MemoryStore()

    async def fill() -> None:
        sink = LocalAnalyticsSink(store, FakeClock())
        await drive({}, sink)
        await drive({}, sink)  # the same inputs again: the same event ids, counted once
        await sink.flush()

    asyncio.run(fill())
    config = make_test_config(operator_token=OPERATOR)
    with start_server(config, store=store) as server:
        auth = {"Authorization": f"Bearer {OPERATOR}"}
        assert httpx.get(f"{server.http_url}/operator/analytics").status_code == 401
        counts = httpx.get(f"{server.http_url}/v1/analytics/counts", headers=auth).json()
        by_event = {row["event"]: row for row in counts["counts"]}
        assert by_event["CONNECT_SUCCESS"] == {"project": "demo", "day": "2023-11-14",
                                               "event": "CONNECT_SUCCESS", "count": 1}
        page = httpx.get(f"{server.http_url}/operator/analytics", headers=auth)
        assert page.status_code == 200
        assert "<td>CONNECT_SUCCESS</td>" in page.text and "2023-11-14" in page.text
    with start_server(make_test_config(), store=store) as server:
        assert httpx.get(f"{server.http_url}/operator/analytics").status_code == 404


def test_rule_a_live_engine_keeps_its_events_by_default() -> None:
    from modalcore_testing import Client  # noqa: F401  (the real socket client)

    store = MemoryStore()
    config = make_test_config(operator_token=OPERATOR)

    async def visit(server: Any) -> None:
        async with server.client() as client:
            await client.join()
            await client.intent("host", "open")
            await client.quiet(0.2)

    with start_server(config, store=store) as server:
        asyncio.run(visit(server))
        server.wait_for(lambda: any(r[2] == "MODAL_OPEN" for r in asyncio.run(store.analytics.counts())))
        counts = httpx.get(f"{server.http_url}/v1/analytics/counts",
                           headers={"Authorization": f"Bearer {OPERATOR}"}).json()["counts"]
        assert {row["event"] for row in counts} >= {"MODAL_CREATED", "MODAL_OPEN"}


def test_rule_track_commands_reach_the_sink_with_their_id_and_the_visitor_address() -> None:
    sink = MemorySink()
    asyncio.run(drive({"siwx": {"required": True, "statement": "Sign in"}}, sink))
    (cancel,) = [e for e in sink.events if e.event == "CLICK_CANCEL_SIWX"]
    assert cancel.address == ADDRESS and len(cancel.event_id) == 36
    assert cancel.project_id == "demo" and cancel.kind == "track"


def test_rule_an_unexpected_error_processing_an_input_is_reported_as_error_telemetry() -> None:
    from modalcore.core.msg import Msg

    class Boom(Msg):
        pass

    sink = MemorySink()

    async def run() -> None:
        clock = FakeClock()
        model = initial_model("demo", "https://app.example.com",
                              parse_options({"networks": ["eip155:31337"]}), Env(), [])
        runner = SessionRunner(Session("s-err", model, clock.now_ms()),
                               RunnerDeps(clock=clock, services=default_services(), analytics=sink))

        def explode(msg: Msg, now: int) -> Any:
            raise KeyError("boom")

        runner.session.deliver = explode  # type: ignore[method-assign]
        runner.start()
        runner.deliver(Boom())
        await runner.settled()
        await runner.stop()

    asyncio.run(run())
    (report,) = [e for e in sink.events if e.kind == "error"]
    assert report.event == "ERROR" and report.props["type"] == "error"
    assert report.props["event"] == "PROCESS_DELIVER"
    assert (report.props["errorType"], report.props["errorMessage"]) == ("KeyError", "'boom'")
    assert "Traceback" in str(report.props["stackTrace"])
