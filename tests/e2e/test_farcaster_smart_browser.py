"""Issues 33 and 32 in Chromium, as `make run` configures the dev chains (smart accounts on
both): with sign-in required, Connect → Farcaster → the demo client approves as dev FID 2 → one
approval ends signed in, for the account shown: the FID key's smart account, not deployed. No
SIWXSignMessage, no approval frame; the stored sign-in names the smart account, its signature is
ERC-6492-wrapped, and viem's `verifyMessage` accepts it on the dev chain."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from modalcore.netports import free_port
from modalcore.siwx.backend.verify import is_erc6492
from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.farcaster.devrelay import farcaster_section
from modalcore_testing import RunningServer, serve_app

from ..embedded.test_smart_account_chain import smart_accounts_section
from ..farcaster.test_one_approval_smart_chain import _viem_verifies
from .conftest import TIMEOUT_MS, serve
from .test_embedded_browser import HOST_PAGE, embedded_engine_config
from .test_farcaster_browser import VIEWS_SEEN, _approve_in_client, _signed_in_as_the_embedded_account, farcaster_relay

__all__ = ["farcaster_relay"]  # the fixture this module uses
pytestmark = [pytest.mark.e2e, pytest.mark.chain]


@pytest.fixture(scope="module")
def smart_host_port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def smart_farcaster_engine(aachains: AaChains, farcaster_relay: RunningServer, smart_host_port: int,
                           tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    folder: Path = tmp_path_factory.mktemp("farcaster-smart-e2e")
    section = farcaster_section(farcaster_relay.http_url, aachains.chains.chain(31337),
                                f"http://127.0.0.1:{smart_host_port}")
    assert section is not None
    config = embedded_engine_config(folder, aachains.chains, {"farcaster": section},
                                    smart_accounts=smart_accounts_section(aachains, sponsored_projects=["demo"]))
    with serve(config, free_port()) as running:
        yield running


@pytest.fixture(scope="module")
def smart_farcaster_host(smart_farcaster_engine: RunningServer, smart_host_port: int) -> Iterator[str]:
    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(HOST_PAGE % {"engine": smart_farcaster_engine.http_url,
                                         "siwx": ", siwx: {required: true}", "theme": ""})

    with serve_app(Starlette(routes=[Route("/", page)]), smart_host_port) as running:
        yield running.http_url


def test_one_farcaster_approval_signs_in_the_undeployed_smart_account(
        browser: Any, smart_farcaster_host: str, farcaster_relay: RunningServer,
        smart_farcaster_engine: RunningServer, aachains: AaChains) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(VIEWS_SEEN)
    try:
        page = context.new_page()
        page.goto(smart_farcaster_host + "/")
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        page.locator('.wm-card[data-view="Connect"]').get_by_text("Continue with Farcaster").click()
        page.frame_locator("iframe.wm-frame").locator("#farcaster-qr svg").wait_for(state="visible")
        _approve_in_client(context, farcaster_relay, 2)
        page.bring_to_front()
        _signed_in_as_the_embedded_account(page, 2)
        views = page.evaluate("window.viewsSeen")
        assert "SIWXSignMessage" not in views and "ApproveTransaction" not in views, views
        shown = json.loads(page.locator("#account").inner_text())
        kinds = {entry["type"]: entry["address"] for entry in shown["allAccounts"]}
        assert shown["preferredAccountType"] == "smartAccount" and shown["address"] == kinds["smartAccount"]
        smart = shown["address"]
        domain = smart_farcaster_host.split("://", 1)[1]
        stored = httpx.get(f"{smart_farcaster_engine.http_url}/v1/sessions/{smart}", params={"domain": domain}).json()
    finally:
        context.close()
    [session] = stored
    assert f"\n{smart}\n" in session["message"] and is_erc6492(bytes.fromhex(session["signature"][2:]))
    with aachains.chains.rpc(31337) as rpc:
        assert rpc.code(smart) in ("0x", "0x0")
    assert _viem_verifies(aachains, smart, session["message"], session["signature"])
