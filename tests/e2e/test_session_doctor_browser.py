"""The session doctor in Chromium (issue 44 item 2): the Dev Wallet rejects the connection, the
failure screen offers "Copy support code", the copied code turns into a redacted replay at
`/operator/support` that `modalcore inspect` steps through; the failure is counted per cause and
wallet in `/metrics` and `/operator/analytics`; the same code with another project is refused."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from modalcore.inspect.recording import inspect_file
from modalcore.netports import free_port
from modalcore.server.app import create_app
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.rigs import dev_rigs
from modalcore_testing import RunningServer, serve_app

from .conftest import HOST, REPO_ROOT, TIMEOUT_MS, Demo, engine_config, open_modal, watch

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

TOKEN = "operator-token-for-the-doctor-browser-test"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
SHOTS = REPO_ROOT / "docs" / "screenshots"


@pytest.fixture(scope="module")
def recording_engine(devchains: ChainsInfo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """The demo engine recording its sessions (`serve --record-dir`), with an operator token."""
    folder = tmp_path_factory.mktemp("doctor-engine")
    port = free_port()
    config = engine_config(devchains, folder).model_copy(
        update={"public_url": f"http://{HOST}:{port}", "operator_token": TOKEN})
    app = create_app(config, rigs=dev_rigs(config), record_dir=folder / "rec")
    with serve_app(app, port) as running:
        yield running


def test_a_rejected_connect_gives_a_support_code_that_opens_a_redacted_replay(
        browser: Any, recording_engine: RunningServer, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    demo = Demo(context, context.new_page(), recording_engine.http_url)
    watch(demo)
    try:
        demo.goto()
        demo.eval("window.devWallet.setRejectNext(true)")
        open_modal(demo)
        demo.wait_view("Connect").get_by_role("button", name="Dev Wallet").click()
        card = demo.wait_view("ConnectingExternal")
        expect(card.get_by_text("Connection declined")).to_be_visible()
        copy = card.get_by_role("button", name="Copy support code")
        expect(copy).to_be_visible()
        demo.page.screenshot(path=str(SHOTS / "issue44-doctor-support-code.png"))
        copy.click()
        expect(demo.page.get_by_text("Support code copied")).to_be_visible()
        code = str(demo.eval("navigator.clipboard.readText()"))
    finally:
        context.close()
    assert demo.errors == [], demo.errors
    assert len(code) == 14 and code[4] == "-"

    base = recording_engine.http_url
    with caplog.at_level(logging.INFO):
        replay = httpx.get(base + "/operator/support", params={"project": "demo", "code": code},
                           headers=AUTH, timeout=10)
        assert replay.status_code == 200, replay.text
        foreign = httpx.get(base + "/operator/support", params={"project": "other", "code": code},
                            headers=AUTH, timeout=10)
        assert (foreign.status_code, foreign.json()) == (404, {"error": "unknown_support_code"})
        unknown = httpx.get(base + "/operator/support", params={"project": "demo", "code": "AAAA-AAAA-AAAA"},
                            headers=AUTH, timeout=10)
        assert (unknown.status_code, unknown.json()) == (404, {"error": "unknown_support_code"})
    assert not [r for r in caplog.records if r.exc_info]

    saved = tmp_path / "support.jsonl"
    saved.write_text(replay.text)
    inspection = inspect_file(saved)
    assert inspection.problem == "" and inspection.project == "demo"
    assert any(step.kind == "effect_result" for step in inspection.steps)

    metrics = httpx.get(base + "/metrics", headers=AUTH, timeout=10).text
    assert 'modalcore_session_failures_total{flow="connect",cause="request_rejected"' in metrics
    def doctor_rows() -> list[dict[str, Any]]:
        counts = httpx.get(base + "/v1/analytics/counts", headers=AUTH, timeout=10).json()["counts"]
        return [c for c in counts if str(c["event"]).startswith("DOCTOR connect request_rejected ")]

    for _ in range(50):  # the store keeps events on its next commit
        if doctor_rows():
            break
        time.sleep(0.2)
    assert [(r["project"], r["count"]) for r in doctor_rows()] == [("demo", 1)]
