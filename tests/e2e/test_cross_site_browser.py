"""The embedded wallet with the host page and the engine on two SITES (the production case:
app.example.com embeds wallet-engine.example.net), in Chromium: `http://localhost:P` embeds the
engine at `http://127.0.0.1:Q` (two sites: two host names, neither a registrable suffix of the
other). Every other e2e test puts both on 127.0.0.1 (one site), where the frame's storage is
first-party to its site and nothing of this shows.

What the browser gives the engine-origin frame there (measured in this Chromium, 156, through
Playwright; docs/features/embedded-wallet.md "Cross-site hosting"):
- a profile that blocks third-party cookies (this build's default for a new profile, and
  Chrome's Incognito default): no storage at all in the frame (IndexedDB "The user denied
  permission to access the database", localStorage SecurityError), and
  `document.requestStorageAccess` refused ("requestStorageAccess not allowed": the engine's site
  was never visited as a top-level page). The frame keeps its key in a window of the engine's
  own origin (first-party storage), opened by the sign-in press;
- a profile that allows them (stock Chrome's default): the frame's own IndexedDB, partitioned
  by the top-level site.

Rules checked: a sign-in by email and an approved send work in both modes; the key the window
holds is the frame's key after a reload of the host page mid-session (the session resumes, the
same key approves); in the blocked mode nothing is signed until that window is open, and a
frame without it says so in words (no silent nothing)."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import RunningServer, serve_app
from modalcore_testing.chromium import CHROMIUM, CHROMIUM_ARGS, sync_chromium

from .conftest import TIMEOUT_MS
from .test_embedded_browser import HOST_PAGE, embedded_dir, embedded_engine, sign_in_by_email, smtp  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

# the loopback rule of the other tests, and `localhost` (the host page's site here)
RESOLVER = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"
RECEIVER = "0x976EA74026E726554dB657fA54763abd0C3a0aa9"
CONNECTED = "document.getElementById('account').textContent.includes('\"isConnected\":true')"
KEY_WINDOW = "/embedded/key"


@contextlib.contextmanager
def host_on_another_site(engine: RunningServer) -> Iterator[str]:
    """The host dApp at http://localhost:P: another site than the engine's 127.0.0.1."""
    url = engine.http_url.rstrip("/")
    assert "127.0.0.1" in url

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(HOST_PAGE % {"engine": url, "siwx": "", "theme": ""})

    with serve_app(Starlette(routes=[Route("/", page)])) as running:
        yield running.http_url.rstrip("/").replace("127.0.0.1", "localhost")


@pytest.fixture(scope="module")
def cross_site_host(embedded_engine: RunningServer) -> Iterator[str]:
    with host_on_another_site(embedded_engine) as url:
        yield url


@pytest.fixture(scope="module")
def blocking_browser(renderer_dist: Any) -> Iterator[Any]:
    with sync_chromium(RESOLVER) as b:
        yield b


@contextlib.contextmanager
def blocking_profile(browser: Any) -> Iterator[Any]:
    """A new profile as this Chromium makes it: third-party cookies (and so the frame's
    storage) blocked."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        yield context
    finally:
        context.close()


@contextlib.contextmanager
def allowing_profile(browser: Any, folder: Path) -> Iterator[Any]:
    """A regular profile that allows third-party cookies (stock Chrome's default): the frame
    gets storage of its own, partitioned by the top-level site."""
    (folder / "Default").mkdir(parents=True)
    (folder / "Default" / "Preferences").write_text(json.dumps({"profile": {"cookie_controls_mode": 0}}))
    context = browser.browser_type.launch_persistent_context(
        str(folder), executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, RESOLVER],
        viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        yield context
    finally:
        context.close()


def frame_storage(page: Any, path: str) -> str:
    """What IndexedDB the engine-origin frame at `path` gets: "ok" or the browser's error."""
    frame = next(f for f in page.frames if path in f.url)
    return str(frame.evaluate("""() => new Promise((ok) => { try { const r = indexedDB.open('probe', 1);
        r.onsuccess = () => ok('ok'); r.onerror = () => ok(r.error.message); } catch (e) { ok(e.message); } })"""))


def open_host(context: Any, url: str) -> Any:
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("window.hostModal !== undefined")
    return page


def address_of(page: Any) -> str:
    page.wait_for_function(CONNECTED)
    account = json.loads(page.locator("#account").inner_text())
    return str(account["address"])


def send_and_approve(page: Any, devchain: ChainsInfo, address: str, wei: int) -> str:
    """The host asks a send; the visitor approves it in the engine-origin frame; it lands.
    Returns what IndexedDB the approval frame got (frame_storage)."""
    with devchain.rpc(31337) as rpc:
        rpc.call("hardhat_setBalance", [address, hex(2 * 10**18)])
        before = int(rpc.call("eth_getBalance", [RECEIVER, "latest"]), 16)
    page.evaluate("""([from, to, value]) => { window.sent = window.hostModal.getProvider().request(
        {method: 'eth_sendTransaction', params: [{from, to, value}]}); }""", [address, RECEIVER, hex(wei)])
    page.locator('.wm-card[data-view="ApproveTransaction"]').wait_for(state="visible")
    approval = page.frame_locator("iframe.wm-frame")
    approve = approval.get_by_role("button", name="Approve")
    approve.wait_for(state="visible")
    from playwright.sync_api import expect
    expect(approve).to_be_enabled()
    storage = frame_storage(page, "/embedded/approve")
    page.wait_for_timeout(600)  # Chromium drops clicks on a cross-origin frame that just moved
    approve.click()
    deadline = time.monotonic() + 15
    with devchain.rpc(31337) as rpc:
        while int(rpc.call("eth_getBalance", [RECEIVER, "latest"]), 16) != before + wei:
            assert time.monotonic() < deadline, "the send never reached the receiver"
            time.sleep(0.05)
    page.wait_for_function("window.sent !== undefined")
    assert page.evaluate("window.sent.then((h) => h)").startswith("0x")
    return storage


def key_window(context: Any, engine: RunningServer) -> Any:
    """The engine-origin key window open in `context` (it opens blank, then loads the page)."""
    url = engine.http_url.rstrip("/") + KEY_WINDOW
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while True:
        found = [p for p in context.pages if p.url.startswith(url)]
        if found:
            return found[0]
        assert time.monotonic() < deadline, [p.url for p in context.pages]
        time.sleep(0.05)


def registered_keys(folder: Path) -> int:
    import sqlite3
    with contextlib.closing(sqlite3.connect(folder / "embedded.db")) as db:
        return int(db.execute("select count(*) from device_keys").fetchone()[0])


def test_cross_site_with_storage_blocked_signs_in_approves_a_send_and_survives_a_reload(
        blocking_browser: Any, cross_site_host: str, smtp: LocalSmtpServer, devchain: ChainsInfo,
        embedded_engine: RunningServer, embedded_dir: Path) -> None:  # noqa: F811
    """Third-party storage blocked (this Chromium's new profile, Chrome Incognito): the sign-in
    press opens the engine-origin key window, which holds this browser's key; the send is
    approved in the frame with it; after a reload of the host page the session resumes and the
    same key (no new registration) approves again."""
    with blocking_profile(blocking_browser) as context:
        page = open_host(context, cross_site_host)
        sign_in_by_email(page, smtp, "xena@example.com")
        window = key_window(context, embedded_engine)
        window.get_by_text("keeps this browser's key for the wallet").wait_for(state="visible")
        address = address_of(page)
        # the reason, measured: the frame of the engine's origin has no storage on this page
        page.click("#open")
        page.locator('.wm-card[data-view="Account"]').wait_for(state="visible")
        page.keyboard.press("Escape")
        assert "denied" in send_and_approve(page, devchain, address, 10**17)
        keys = registered_keys(embedded_dir)

        # a reload of the host page mid-session: the session resumes, the same key approves
        page.reload()
        page.wait_for_function("window.hostModal !== undefined")
        assert address_of(page) == address
        send_and_approve(page, devchain, address, 2 * 10**17)
        assert registered_keys(embedded_dir) == keys
        assert not window.is_closed()


def test_cross_site_with_the_key_window_closed_the_frame_says_why_and_reopens_it(
        blocking_browser: Any, cross_site_host: str, smtp: LocalSmtpServer, devchain: ChainsInfo,
        embedded_engine: RunningServer, embedded_dir: Path) -> None:  # noqa: F811
    """The key window closed mid-session: the approval frame says in words that this browser
    blocks storage for the wallet frame and offers to open the window (a press: a user gesture);
    the window it opens holds the same key (first-party storage), and the send is approved."""
    from playwright.sync_api import expect

    with blocking_profile(blocking_browser) as context:
        page = open_host(context, cross_site_host)
        sign_in_by_email(page, smtp, "yuri@example.com")
        address = address_of(page)
        keys = registered_keys(embedded_dir)
        key_window(context, embedded_engine).close()
        with devchain.rpc(31337) as rpc:
            rpc.call("hardhat_setBalance", [address, hex(2 * 10**18)])
        page.evaluate("""([from, to]) => { window.sent = window.hostModal.getProvider().request(
            {method: 'eth_sendTransaction', params: [{from, to, value: '0x1'}]}); }""", [address, RECEIVER])
        page.locator('.wm-card[data-view="ApproveTransaction"]').wait_for(state="visible")
        approval = page.frame_locator("iframe.wm-frame")
        expect(approval.get_by_text("This browser blocks storage for the wallet frame")).to_be_visible()
        expect(approval.get_by_role("button", name="Approve")).to_be_disabled()
        page.wait_for_timeout(600)
        # a press in the frame opens it (Chromium drops a click on a cross-origin frame that
        # moved in the last 500 ms, as the note grew it: a visitor presses again)
        opener = approval.get_by_role("button", name="Open the key window")
        for _ in range(3):
            opener.click()
            if opener.count() == 0 or page.wait_for_timeout(1000) or opener.count() == 0:
                break
        key_window(context, embedded_engine)
        expect(approval.get_by_role("button", name="Approve")).to_be_enabled()
        page.wait_for_timeout(600)
        approval.get_by_role("button", name="Approve").click()
        page.wait_for_function("window.sent !== undefined")
        assert page.evaluate("window.sent.then((h) => h)").startswith("0x")
        assert registered_keys(embedded_dir) == keys


def test_cross_site_with_third_party_storage_allowed_the_frame_keeps_its_own_partitioned_key(
        blocking_browser: Any, cross_site_host: str, smtp: LocalSmtpServer, devchain: ChainsInfo,
        tmp_path: Path) -> None:
    """Stock Chrome's default (third-party cookies allowed): the frame's own IndexedDB,
    partitioned by the top-level site, holds the key; no window opens."""
    with allowing_profile(blocking_browser, tmp_path / "profile") as context:
        page = open_host(context, cross_site_host)
        sign_in_by_email(page, smtp, "zeno@example.com")
        address = address_of(page)
        assert send_and_approve(page, devchain, address, 10**16) == "ok"
        assert [p.url for p in context.pages if KEY_WINDOW in p.url] == []
