"""All Wallets in Debian's Chromium against a real engine: search "rain" finds Rainbow, and
scrolling to the end of the list loads page 2."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modalcore_testing.chromium import sync_chromium
from modalcore.server.config import EngineConfig, dev_networks, parse_config
from modalcore_testing import RunningServer, start_server

pytestmark = pytest.mark.e2e

REPO_ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_MS = 10_000
WALLETS = ".wm-card .wm-wallet"
ARTIFACTS = REPO_ROOT / "artifacts" / "screenshots"


def config(folder: Path) -> EngineConfig:
    """The demo's composition (modalcore_dev/demo.py), without chains: nothing here talks to one."""
    return parse_config({
        "secret": "e2e-directory-secret",
        "projects": {"demo": {"name": "Modalcore demo dApp", "origins": []}},
        "networks": dev_networks({31337: "http://127.0.0.1:9", 31338: "http://127.0.0.1:9"}, {}),
        "store": {"kind": "memory"},
        "demo_page": True,
        "siwx": {"db": ":memory:", "key_file": str(folder / "engine.key")},
    })


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with start_server(config(tmp_path_factory.mktemp("directory-e2e"))) as running:
        yield running


@pytest.fixture(scope="module")
def page(engine: RunningServer) -> Iterator[Any]:
    # `make test` builds it; a missing one is a broken setup, not a reason to skip.
    assert (REPO_ROOT / "renderer" / "dist" / "modal.js").exists(), "needs renderer/dist (make renderer)"
    with sync_chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        tab = context.new_page()
        tab.set_default_timeout(TIMEOUT_MS)
        tab.goto(engine.http_url + "/")
        tab.wait_for_function("window.demoModal !== undefined")
        yield tab


def _session(engine: RunningServer) -> Any:
    runners = list(engine.hub.runners.values())
    assert len(runners) == 1
    return runners[0].session


def test_search_rain_shows_rainbow_and_scrolling_loads_page_two(engine: RunningServer, page: Any) -> None:
    from playwright.sync_api import expect

    page.evaluate("window.demoModal.open({view: 'AllWallets'})")
    search = page.get_by_role("searchbox")
    expect(search).to_be_visible()
    expect(page.locator(WALLETS)).to_have_count(41)  # the Dev Wallet (installed) and page 1 of 40

    search.press_sequentially("rain", delay=40)
    rainbow = page.get_by_role("button", name="Rainbow")
    expect(rainbow).to_be_visible()
    expect(page.locator(WALLETS)).to_have_count(1)
    directory = _session(engine).model.directory
    assert directory.search_query == "rain" and [w.name for w in directory.results] == ["Rainbow"]

    search.fill("")
    expect(page.locator(WALLETS)).to_have_count(41)
    expect(page.get_by_role("button", name="Magic Eden Wallet")).to_have_count(0)  # on page 2
    page.locator(WALLETS).last.scroll_into_view_if_needed()
    expect(page.locator(WALLETS)).to_have_count(81)
    assert _session(engine).model.directory.page == 2
    magic_eden = page.get_by_role("button", name="Magic Eden Wallet")
    magic_eden.scroll_into_view_if_needed()
    expect(magic_eden).to_be_visible()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "directory-all-wallets-page-2.png"))
