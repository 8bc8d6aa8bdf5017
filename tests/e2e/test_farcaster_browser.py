"""Issue 33 in Chromium: Sign in with Farcaster through the local auth relay and the real
IdRegistry on the dev chain. The host dApp is on its own origin; Connect → "Continue with
Farcaster" draws the channel's QR code; the demo Farcaster client (the relay's /client page, in
another tab, as a phone's app would) approves as dev FID 2; the engine verifies the message, the
custody signature and the registry, and Account shows the Farcaster username and avatar."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.farcaster.devrelay import farcaster_section
from modalcore_dev.farcaster.relay import create_relay_app
from modalcore.netports import free_port
from modalcore_testing import RunningServer, serve_app

from .conftest import TIMEOUT_MS, serve
from .test_embedded_browser import HOST_PAGE, embedded_engine_config

pytestmark = [pytest.mark.e2e, pytest.mark.chain]


@pytest.fixture(scope="module")
def farcaster_relay() -> Iterator[RunningServer]:
    with serve_app(create_relay_app(demo_client=True)) as running:
        yield running


@pytest.fixture(scope="module")
def host_port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def farcaster_engine(devchains: ChainsInfo, farcaster_relay: RunningServer, host_port: int,
                     tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    folder: Path = tmp_path_factory.mktemp("farcaster-e2e")
    section = farcaster_section(farcaster_relay.http_url, devchains.chain(31337), f"http://127.0.0.1:{host_port}")
    assert section is not None
    config = embedded_engine_config(folder, devchains, {"farcaster": section})
    with serve(config, free_port()) as running:
        yield running


@pytest.fixture(scope="module")
def farcaster_host(farcaster_engine: RunningServer, host_port: int) -> Iterator[str]:
    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(HOST_PAGE % {"engine": farcaster_engine.http_url, "siwx": "", "theme": ""})

    with serve_app(Starlette(routes=[Route("/", page)]), host_port) as running:
        yield running.http_url


def test_connect_farcaster_the_demo_client_approves_and_account_shows_the_user(
        browser: Any, farcaster_host: str, farcaster_relay: RunningServer) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)  # every wait is bounded
    try:
        page = context.new_page()
        page.goto(farcaster_host)
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        card = page.locator('.wm-card[data-view="Connect"]')
        card.wait_for(state="visible")
        card.get_by_text("Continue with Farcaster").click()
        page.locator('.wm-card[data-view="ConnectingFarcaster"]').wait_for(state="visible")
        expect(page.get_by_text("Scan this QR Code with your phone")).to_be_visible()

        client = context.new_page()  # the Farcaster app
        client.goto(f"{farcaster_relay.http_url}/client")
        client.get_by_role("button", name="Use").first.click()
        assert client.locator("#url").input_value().startswith("farcaster://connect?channelToken=")
        client.click("#approve-2")
        expect(client.locator("#result")).to_have_text("Approved as FID 2")

        page.bring_to_front()
        page.wait_for_function(
            "document.getElementById('account').textContent.includes('\"isConnected\":true')",
            timeout=TIMEOUT_MS)
        assert '"connector":"ID_AUTH"' in page.locator("#account").inner_text()
        page.click("#open")
        account = page.locator('.wm-card[data-view="Account"]')
        account.wait_for(state="visible")
        expect(account.get_by_text("carol", exact=True)).to_be_visible()
        assert '"avatar":"%s/client/pfp/2.svg"' % farcaster_relay.http_url in page.locator("#account").inner_text()
        avatar = account.locator('img[src$="/client/pfp/2.svg"]')
        expect(avatar.first).to_be_visible()
    finally:
        context.close()
