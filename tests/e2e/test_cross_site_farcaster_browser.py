"""Sign in with Farcaster with the host page and the engine on two SITES (host
`http://localhost:P`, engine `http://127.0.0.1:Q`), in a Chromium profile that gives the
engine-origin frame no storage (third-party cookies blocked).

Rule (docs/features/embedded-wallet.md "Cross-site hosting"): the channel is opened for this
browser's key, which the frame cannot keep; it says so in words and offers "Open the key window"
(a press: only a press opens a window). Once pressed, the QR code is drawn for the key that window
keeps, the Farcaster client approves, and the visitor is signed in. Before, the frame said only
"This browser cannot hold a wallet key" and nothing could be done."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from modalcore.netports import free_port
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.farcaster.devrelay import farcaster_section
from modalcore_testing import RunningServer, serve_app

from .conftest import TIMEOUT_MS, host_connected, serve
from .test_cross_site_browser import KEY_WINDOW, blocking_browser, blocking_profile, open_host  # noqa: F401
from .test_embedded_browser import HOST_PAGE, embedded_engine_config
from .test_farcaster_browser import _approve_in_client, farcaster_relay  # noqa: F401 (fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.chain]


@pytest.fixture(scope="module")
def host_port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def engine(devchains: ChainsInfo, farcaster_relay: RunningServer, host_port: int,  # noqa: F811
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    folder: Path = tmp_path_factory.mktemp("farcaster-cross-site")
    section = farcaster_section(farcaster_relay.http_url, devchains.chain(31337), f"http://localhost:{host_port}")
    assert section is not None
    with serve(embedded_engine_config(folder, devchains, {"farcaster": section}), free_port()) as running:
        yield running


@pytest.fixture(scope="module")
def host(engine: RunningServer, host_port: int) -> Iterator[str]:
    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(HOST_PAGE % {"engine": engine.http_url.rstrip("/"), "siwx": "", "theme": ""})

    with serve_app(Starlette(routes=[Route("/", page)]), host_port) as running:
        yield running.http_url.rstrip("/").replace("127.0.0.1", "localhost")


def test_cross_site_with_storage_blocked_farcaster_offers_the_key_window_then_signs_in(
        blocking_browser: Any, host: str, engine: RunningServer,  # noqa: F811
        farcaster_relay: RunningServer) -> None:  # noqa: F811
    from playwright.sync_api import expect

    with blocking_profile(blocking_browser) as context:
        page = open_host(context, host)
        page.click("#open")
        card = page.locator('.wm-card[data-view="Connect"]')
        card.wait_for(state="visible")
        card.get_by_text("Continue with Farcaster").click()
        page.locator('.wm-card[data-view="ConnectingFarcaster"]').wait_for(state="visible")
        frame = page.frame_locator("iframe.wm-frame")
        expect(frame.get_by_text("This browser blocks storage for the wallet frame", exact=False)).to_be_visible()
        expect(frame.locator("#farcaster-qr")).to_have_count(0)  # no channel opened for no key
        page.wait_for_timeout(600)  # Chromium drops clicks on a cross-origin frame that just moved
        with context.expect_page() as opened:
            frame.get_by_role("button", name="Open the key window").click()
        window = opened.value
        window.wait_for_url(engine.http_url.rstrip("/") + KEY_WINDOW)
        window.get_by_text("keeps this browser's key for the wallet").wait_for(state="visible")
        expect(frame.locator("#farcaster-qr svg")).to_be_visible(timeout=TIMEOUT_MS)
        _approve_in_client(context, farcaster_relay, 2)
        page.bring_to_front()
        host_connected(page)
        assert '"connector":"ID_AUTH"' in page.locator("#account").inner_text()
        assert not window.is_closed()
