"""Passkeys with the host page and the engine on two SITES, in Chromium: `http://127.0.0.1:P`
embeds the engine at `http://localhost:Q` (a passkey's relying party must be a domain, so the
engine is the `localhost` side here, the other way round from test_cross_site_browser.py).

A new profile here blocks third-party storage, so the engine-origin frames have no IndexedDB
and this browser's device key lives in the engine-origin key window (docs/features/
embedded-wallet.md "Cross-site hosting"). Rules checked: "Add a passkey" and "Sign in with a
passkey" are presses that reach that key window (it signs the registration and the sign-in), so
a visitor on a cross-site host adds a passkey, signs in with it from Connect in a fresh
profile with no email typed, and approves a send."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import serve_app

from .test_embedded_browser import HOST_PAGE, embedded_dir, embedded_engine, sign_in_by_email, smtp  # noqa: F401
from .test_passkey_browser import (RECEIVER, connect_passkey_frame, connected_address, credentials, engine_url,  # noqa: F401
                                   passkey_browser, profile)

pytestmark = [pytest.mark.e2e, pytest.mark.chain]


@pytest.fixture(scope="module")
def other_site_host(engine_url: str) -> Iterator[str]:  # noqa: F811
    """The host dApp at http://127.0.0.1:P: another site than the engine's localhost."""
    assert "localhost" in engine_url

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(HOST_PAGE % {"engine": engine_url, "siwx": "", "theme": ""})

    with serve_app(Starlette(routes=[Route("/", page)])) as running:
        yield running.http_url


def frame_has_no_storage(page: Any) -> bool:
    frame = next(f for f in page.frames if "/embedded/passkey" in f.url)
    said = str(frame.evaluate("""() => new Promise((ok) => { try { const r = indexedDB.open('probe', 1);
        r.onsuccess = () => ok('ok'); r.onerror = () => ok(r.error.message); } catch (e) { ok(e.message); } })"""))
    return said != "ok"


def test_cross_site_a_passkey_is_added_through_the_key_window_and_signs_in_a_fresh_profile(
        passkey_browser: Any, other_site_host: str, smtp: LocalSmtpServer, devchain: ChainsInfo) -> None:  # noqa: F811
    with profile(passkey_browser, other_site_host) as (page, cdp, authenticator):
        sign_in_by_email(page, smtp, "quinn@example.com")
        address = connected_address(page)
        page.click("#open")
        page.locator('.wm-card[data-view="Account"]').wait_for(state="visible")
        frame = page.frame_locator('.wm-card[data-view="Account"] iframe.wm-frame')
        add = frame.get_by_role("button", name="Add a passkey")
        add.wait_for(state="visible")
        assert frame_has_no_storage(page)  # the case under test: the key is the key window's
        page.wait_for_timeout(600)  # Chromium drops clicks on a cross-origin frame that just moved
        add.click()
        frame.get_by_text("Passkey added").wait_for(state="visible")
        held = credentials(cdp, authenticator)
        assert len(held) == 1 and held[0]["rpId"] == "localhost"
        registered = held[0]

    with devchain.rpc(31337) as rpc:
        rpc.call("hardhat_setBalance", [address, hex(2 * 10**18)])
        before = int(rpc.call("eth_getBalance", [RECEIVER, "latest"]), 16)

    with profile(passkey_browser, other_site_host, registered) as (page, _, __):
        button = connect_passkey_frame(page).get_by_role("button", name="Sign in with a passkey")
        button.wait_for(state="visible")
        page.wait_for_timeout(600)
        button.click()
        assert connected_address(page) == address
        page.evaluate("""([from, to]) => { window.sent = window.hostModal.getProvider().request(
            {method: 'eth_sendTransaction', params: [{from, to, value: '0x16345785d8a0000'}]}); }""",
                      [address, RECEIVER])
        page.locator('.wm-card[data-view="ApproveTransaction"]').wait_for(state="visible")
        approval = page.frame_locator("iframe.wm-frame")
        approve = approval.get_by_role("button", name="Approve")
        approve.wait_for(state="visible")
        page.wait_for_timeout(600)
        approve.click()
        deadline = time.monotonic() + 15
        with devchain.rpc(31337) as rpc:
            while int(rpc.call("eth_getBalance", [RECEIVER, "latest"]), 16) != before + 10**17:
                assert time.monotonic() < deadline, "the send never reached the receiver"
                time.sleep(0.05)
