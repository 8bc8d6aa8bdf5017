"""Plain HTTP: health, the renderer's files, what a production engine exposes and the security
headers of every response (issue 27 items 4 and 5; the dev-chain proxy: test_devproxy.py)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from modalcore.server.headers import PAGE_CSP
from modalcore_testing import RunningServer, make_test_config, start_server


def _dist(folder: Path) -> Path:
    (folder / "index.html").write_text("<!doctype html><title>demo</title>")
    (folder / "modal.js").write_text("console.log('modal')")
    (folder / "demo.js").write_text("console.log('dev wallet')")
    (folder / "inspect.js").write_text("console.log('inspector')")
    (folder / "test").mkdir()
    (folder / "test" / "a.test.mjs").write_text("export {}")
    return folder


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A production config: no demo page."""
    static = _dist(tmp_path_factory.mktemp("dist"))
    with start_server(make_test_config(static_dir=str(static))) as running:
        yield running


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    static = _dist(tmp_path_factory.mktemp("dist"))
    with start_server(make_test_config(static_dir=str(static), demo_page=True, devchain_proxy=True)) as running:
        yield running


def get(server: RunningServer, path: str) -> httpx.Response:
    return httpx.get(server.http_url + path, timeout=5)


def test_healthz(server: RunningServer) -> None:
    response = get(server, "/healthz")
    assert response.status_code == 200
    body = response.json()
    assert {k: body[k] for k in ("ok", "sessions", "worker_sessions")} == {"ok": True, "sessions": 0, "worker_sessions": 0}
    assert re.fullmatch(r"[0-9a-f]{16}", body["worker"]) and body["pid"] == os.getpid()


def test_a_production_engine_serves_modal_js_and_nothing_of_the_demo(server: RunningServer) -> None:
    script = get(server, "/static/modal.js")
    assert script.status_code == 200 and "modal" in script.text
    for path in ("/", "/index.html", "/static/demo.js", "/static/index.html", "/static/inspect.js",
                 "/static/test/a.test.mjs", "/static/missing.js", "/dev/mail", "/onramp/local?order=x",
                 "/static/../index.html", "/static/%2e%2e/index.html"):
        assert get(server, path).status_code == 404, path
    assert httpx.post(server.http_url + "/devchain/31337", json={}, timeout=5).status_code in (404, 405)


def test_the_demo_page_and_its_script_only_when_the_config_turns_them_on(demo_server: RunningServer) -> None:
    page = get(demo_server, "/")
    assert "<title>demo</title>" in page.text
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert get(demo_server, "/static/demo.js").status_code == 200
    assert get(demo_server, "/static/inspect.js").status_code == 404


def test_index_says_how_to_build_when_missing(tmp_path: Path) -> None:
    with start_server(make_test_config(static_dir=str(tmp_path / "nothing"), demo_page=True)) as bare:
        response = get(bare, "/")
    assert response.status_code == 200 and "make renderer" in response.text


def test_rule_an_installed_bundle_without_a_demo_page_says_the_wheel_has_none(tmp_path: Path) -> None:
    """Issue 46: the wheel's modalcore/static holds modal.js and no index.html; `make renderer`
    cannot help there."""
    (tmp_path / "modal.js").write_text("/* the bundle */")
    with start_server(make_test_config(static_dir=str(tmp_path), demo_page=True)) as installed:
        response = get(installed, "/")
    assert response.status_code == 200
    assert "has no demo page: an installed modalcore (its wheel) ships the modal's script only" in response.text
    assert "set demo_page = false" in response.text


def test_every_response_carries_nosniff_and_a_referrer_policy(server: RunningServer) -> None:
    for path in ("/healthz", "/static/modal.js", "/", "/metrics", "/v1/engine"):
        response = get(server, path)
        assert response.headers["x-content-type-options"] == "nosniff", path
        assert response.headers["referrer-policy"] == "no-referrer", path


def test_every_html_response_carries_a_csp_with_frame_ancestors() -> None:
    """One middleware: a page without a CSP gets the engine's; one with a CSP lacking
    frame-ancestors gets it added; a route's own frame-ancestors is kept."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.responses import HTMLResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from modalcore.server.headers import SecurityHeaders

    async def bare(_: object) -> HTMLResponse:
        return HTMLResponse("<p>hi</p>")

    async def scripted(_: object) -> HTMLResponse:
        return HTMLResponse("<p>hi</p>", headers={"Content-Security-Policy": "script-src 'nonce-x'"})

    async def framed(_: object) -> HTMLResponse:
        return HTMLResponse("<p>hi</p>", headers={"Content-Security-Policy": "frame-ancestors https://a.example"})

    app = Starlette(routes=[Route("/bare", bare), Route("/scripted", scripted), Route("/framed", framed)],
                    middleware=[Middleware(SecurityHeaders)])
    client = TestClient(app)
    assert client.get("/bare").headers["content-security-policy"] == PAGE_CSP
    assert client.get("/scripted").headers["content-security-policy"] == "script-src 'nonce-x'; frame-ancestors 'none'"
    assert client.get("/framed").headers["content-security-policy"] == "frame-ancestors https://a.example"
    for path in ("/bare", "/scripted", "/framed"):
        response = client.get(path)
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"
