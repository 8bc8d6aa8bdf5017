"""Latency tests: the demo page in Chromium, talking to the engine through the delay proxy.

One engine (the `make run` composition on both dev chains), one proxy in front of it (50 ms each
way unless a test changes `proxy.delay_ms`) and one Chromium per module; every test gets a fresh
browser context (fresh localStorage: a new engine session and a new Dev Wallet) and chains
reverted afterwards. The browser runs on a thread of its own (`modalcore_dev.latency.browser`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo, isolated
from modalcore_dev.latency.browser import BrowserThread, DemoPage, chromium, demo_config
from modalcore_dev.latency.proxy import ThreadedProxy, running_proxy
from modalcore_testing import RunningServer, start_server

REPO_ROOT = Path(__file__).resolve().parents[2]
ONE_WAY_MS = 50  # 100 ms round trip



@pytest.fixture(scope="module")
def engine(devchains: ChainsInfo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    # `make test` builds these; a missing one is a broken setup, not a reason to skip.
    assert (REPO_ROOT / "renderer" / "dist" / "modal.js").exists(), "needs renderer/dist (make renderer)"
    folder = tmp_path_factory.mktemp("latency-engine")
    with start_server(demo_config(devchains.rpc_urls, devchains.deployment, folder)) as server:
        yield server


@pytest.fixture(scope="module")
def proxy(engine: RunningServer) -> Iterator[ThreadedProxy]:
    with running_proxy(engine.port, delay_ms=ONE_WAY_MS) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserThread]:
    with chromium() as running:
        yield running


@pytest.fixture
def demo(browser: BrowserThread, proxy: ThreadedProxy, devchains: ChainsInfo) -> Iterator[DemoPage]:
    """The demo page through the proxy at 100 ms round trip, in a fresh context."""
    proxy.delay_ms = ONE_WAY_MS
    with isolated(devchains):
        page = browser.run(DemoPage.open(browser.browser, proxy.http_url))
        try:
            yield page
        finally:
            browser.run(page.close())
