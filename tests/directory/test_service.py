"""The `directory` service as the runtime runs it, and a session's state across a restart."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from modalcore.engine.persist import PendingTimer, load_bytes, session_to_bytes
from modalcore.runtime.clock import FakeClock
from modalcore.core.services import ServiceContext
from modalcore.runtime.services import ServiceRegistry
from modalcore.server.config import parse_config
from modalcore.services.backend.wiring import register_engine_services
from modalcore.slices.directory_query import DirectoryFetched
from modalcore.slices.directory_search import SEARCH_TIMER, WalletSearchDue
from modalcore.services.domain.handles import DIRECTORY

from .conftest import all_wallets


def _context(config_data: dict[str, object], http: httpx.AsyncClient | None = None) -> ServiceContext:
    return ServiceContext(session_id="s", project_id="proj", clock=FakeClock(0), http=http,
                          config=parse_config(config_data))


async def test_the_service_answers_from_the_configured_file_with_the_public_url(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    path.write_text(json.dumps([{"id": "one", "name": "One", "mobile_link": "one://", "chains": ["eip155:1"]},
                                {"id": "two", "name": "Two", "chains": ["eip155:1"]}]))
    registry = ServiceRegistry()
    async with httpx.AsyncClient() as http:
        register_engine_services(registry, http, None, None)  # type: ignore[arg-type]
    assert DIRECTORY in registry
    ctx = _context({"directory": {"file": str(path), "public_url": "https://engine.example/"}})
    call = DIRECTORY.call(DIRECTORY.args(page=1, entries=40, mobile=True), DirectoryFetched, "page:1")
    settled = await registry.call(call, ctx)
    assert settled.ok, settled.error
    assert settled.result == {"data": [{"id": "one", "name": "One", "image_id": "", "rdns": "",
                                        "mobile_link": "one://", "desktop_link": None, "webapp_link": None,
                                        "chains": ["eip155:1"]}],
                              "count": 1, "image_base": "https://engine.example"}


async def test_a_hosted_directory_gets_the_sessions_project_and_bad_args_fail_the_call() -> None:
    seen: list[httpx.Request] = []

    def hosted(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"data": [], "count": 0})

    registry = ServiceRegistry()
    async with httpx.AsyncClient(transport=httpx.MockTransport(hosted)) as http:
        register_engine_services(registry, http, None, None)  # type: ignore[arg-type]
        ctx = _context({"directory": {"api_url": "https://dir.example"}}, http)
        asked = DIRECTORY.args(page=1, entries=4, chains=["eip155:1"])
        ok = await registry.call(DIRECTORY.call(asked, DirectoryFetched, "p"), ctx)
        bad = await registry.call(DIRECTORY.call(DIRECTORY.args(page=0), DirectoryFetched, "p"), ctx)
    assert ok.ok and ok.result["count"] == 0
    assert seen[0].url.params["projectId"] == "proj" and seen[0].url.params["chains"] == "eip155:1"
    assert not bad.ok and "page" in bad.error


def test_the_directory_state_and_a_pending_search_survive_a_restart() -> None:
    h = all_wallets()
    h.press("all/w/rainbow")
    h.press("header/back")
    h.type("rai")
    data = session_to_bytes(h.session, [PendingTimer(SEARCH_TIMER, 300, WalletSearchDue("rai"))])
    restored, timers = load_bytes(data)
    assert restored.model.directory == h.model.directory
    assert restored.model.directory.wallets[0].chains == h.model.directory.wallets[0].chains
    assert timers[0].msg == WalletSearchDue("rai")


def test_calls_lost_with_a_restart_are_asked_for_again_on_rejoin() -> None:
    from .conftest import harness

    h = harness()
    h.host("open", view="AllWallets")
    assert {c.key for c in h.directory_calls()} == {"recommended", "page:1"}
    h.cmds.clear()  # the engine went down with its calls in flight
    h.rejoin(last=None)
    assert sorted(c.key for c in h.directory_calls()) == ["page:1", "recommended"]
    h.settle_directory()
    assert len(h.items()) == 40
    h.type("rain")
    h.advance(300)
    h.cmds.clear()
    h.rejoin(last=None)
    assert [c.args_data["search"] for c in h.directory_calls()] == ["rain"]
    h.settle_directory()
    assert h.names() == ["Rainbow"]
