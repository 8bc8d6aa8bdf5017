"""Issue 33 in Chromium: Sign in with Farcaster through the local auth relay and the real
IdRegistry on the dev chain. The host dApp is on its own origin; Connect → "Continue with
Farcaster" draws the channel's QR code; the demo Farcaster client (the relay's /client page, in
another tab, as a phone's app would) approves as dev FID 2; the engine verifies the message, the
custody signature and the registry, and Account shows the Farcaster username and avatar. A
forged answer (another FID's custody) is refused with Try again. With sign-in required, the one
Farcaster approval signs in (no SIWXSignMessage, no approval frame) and the stored sign-in
verifies with SpruceID's `siwe`; with a statement of the host's (which the Farcaster client does
not show), the approval frame's Farcaster check registers the browser's key and Approve signs in."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from eth_account import Account

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.farcaster.democlient import DEV_FIDS
from modalcore_dev.farcaster.devrelay import farcaster_section
from modalcore_dev.farcaster.relay import create_relay_app
from modalcore.netports import free_port
from modalcore.siwx.domain.message import iso_from_ms
from modalcore_testing import RunningServer, serve_app

from ..siwx.test_siwe_interop import independent_check
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
        siwx = {"1": ", siwx: {required: true}",  # one Farcaster approval signs in
                "terms": ", siwx: {required: true, statement: 'I accept the terms'}",  # two steps
                }.get(request.query_params.get("siwx", ""), "")
        return HTMLResponse(HOST_PAGE % {"engine": farcaster_engine.http_url, "siwx": siwx, "theme": ""})

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
        # the QR code is drawn inside the engine-origin frame, which opened the channel for its key
        expect(page.frame_locator("iframe.wm-frame").locator("#farcaster-qr svg")).to_be_visible()

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
        expect(account.get_by_text("Carol Caster (@carol)", exact=True)).to_be_visible()
        assert '"avatar":"%s/client/pfp/2.svg"' % farcaster_relay.http_url in page.locator("#account").inner_text()
        avatar = account.locator('img[src$="/client/pfp/2.svg"]')
        expect(avatar.first).to_be_visible()
    finally:
        context.close()


def _approve_in_client(context: Any, relay: RunningServer, fid: int, query: str = "",
                       known: frozenset[str] = frozenset()) -> str:
    """The demo Farcaster client (another tab) approves, as `fid`, the newest open channel not
    in `known`; the channel's URL."""
    from playwright.sync_api import expect

    client = context.new_page()
    client.goto(f"{relay.http_url}/client{query}")
    client.wait_for_function("""(known) => Array.from(document.querySelectorAll('#channels li'),
        li => li.lastChild.textContent).some(u => !known.includes(u))""", arg=sorted(known))
    urls = [u for u in client.evaluate("Array.from(document.querySelectorAll('#channels li'), li => li.lastChild.textContent)")
            if u not in known]
    client.fill("#url", urls[-1])
    client.click(f"#approve-{fid}")
    expect(client.locator("#result")).to_have_text(f"Approved as FID {fid}")
    client.close()
    return str(urls[-1])


def test_a_forged_custody_is_refused_and_try_again_offers_a_fresh_channel(
        browser: Any, farcaster_host: str, farcaster_relay: RunningServer) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(farcaster_host)
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        page.locator('.wm-card[data-view="Connect"]').get_by_text("Continue with Farcaster").click()
        card = page.locator('.wm-card[data-view="ConnectingFarcaster"]')
        expect(page.frame_locator("iframe.wm-frame").locator("#farcaster-qr svg")).to_be_visible()
        first = _approve_in_client(context, farcaster_relay, 2, "?forge=custody")
        expect(card.get_by_text("The Farcaster sign-in could not be verified")).to_be_visible()
        assert '"isConnected":true' not in page.locator("#account").inner_text()
        card.get_by_role("button", name="Try again").click()
        expect(page.frame_locator("iframe.wm-frame").locator("#farcaster-qr svg")).to_be_visible()
        _approve_in_client(context, farcaster_relay, 2, known=frozenset({first}))
        page.wait_for_function(
            "document.getElementById('account').textContent.includes('\"isConnected\":true')")
    finally:
        context.close()


def _sign_in_required_to_approval(context: Any, farcaster_host: str, relay: RunningServer,
                                  fid: int) -> tuple[Any, Any, str]:
    """Connect → Farcaster (the demo client approves the frame's channel as `fid`) →
    SIWXSignMessage → Sign → ApproveTransaction; (page, approval frame, the channel's URL)."""
    page = context.new_page()
    page.goto(farcaster_host + "/?siwx=terms")
    page.wait_for_function("window.hostModal !== undefined")
    page.click("#open")
    page.locator('.wm-card[data-view="Connect"]').get_by_text("Continue with Farcaster").click()
    page.frame_locator("iframe.wm-frame").locator("#farcaster-qr svg").wait_for(state="visible")
    url = _approve_in_client(context, relay, fid)
    sign = page.locator('.wm-card[data-view="SIWXSignMessage"]')
    sign.wait_for(state="visible")
    sign.get_by_role("button", name="Sign").click()
    page.locator('.wm-card[data-view="ApproveTransaction"]').wait_for(state="visible")
    frame = page.frame_locator("iframe.wm-frame")
    frame.get_by_text("wants you to sign in with your Ethereum account").wait_for(state="visible")
    return page, frame, url


def _signed_in_as_the_embedded_account(page: Any, fid: int) -> None:
    page.wait_for_function("document.getElementById('siwx').textContent.includes('\"signedIn\":true')")
    address = re.search(r'"address":"(0x[0-9a-fA-F]{40})"', page.locator("#account").inner_text())
    assert address is not None
    assert address.group(1) != Account.from_key(DEV_FIDS[fid - 1].key).address  # not the custody address


# every view the modal's card shows, in order (the modal's shadow root, watched from the start)
VIEWS_SEEN = """if (window.top === window && location.pathname === '/') {
  window.viewsSeen = [];
  const seen = (root) => root.querySelectorAll('.wm-card[data-view]').forEach((card) => {
    const view = card.getAttribute('data-view');
    if (window.viewsSeen[window.viewsSeen.length - 1] !== view) window.viewsSeen.push(view);
  });
  new MutationObserver(() => document.querySelectorAll('modalcore-modal').forEach((m) => {
    if (!m.shadowRoot || m.watched) return;
    m.watched = true;
    new MutationObserver(() => seen(m.shadowRoot)).observe(m.shadowRoot,
      {subtree: true, childList: true, attributes: true, attributeFilter: ['data-view']});
  })).observe(document, {childList: true, subtree: true});
}"""


def test_with_sign_in_required_one_farcaster_approval_ends_on_account_signed_in(
        browser: Any, farcaster_host: str, farcaster_relay: RunningServer, farcaster_engine: RunningServer) -> None:
    """The approval in the Farcaster client is the consent to sign in to this host (its message
    names the host's domain and the session's sign-in nonce): the engine signs the sign-in with
    the embedded key at once. No SIWXSignMessage, no approval frame; the stored sign-in is the
    embedded account's, and an independent SIWE library verifies it."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(VIEWS_SEEN)
    try:
        page = context.new_page()
        page.goto(farcaster_host + "/?siwx=1")
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        page.locator('.wm-card[data-view="Connect"]').get_by_text("Continue with Farcaster").click()
        page.frame_locator("iframe.wm-frame").locator("#farcaster-qr svg").wait_for(state="visible")
        url = _approve_in_client(context, farcaster_relay, 2)
        page.bring_to_front()
        _signed_in_as_the_embedded_account(page, 2)
        views = page.evaluate("window.viewsSeen")
        assert "SIWXSignMessage" not in views and "ApproveTransaction" not in views, views
        assert views[:2] == ["Connect", "ConnectingFarcaster"], views
        page.click("#open")
        account = page.locator('.wm-card[data-view="Account"]')
        account.wait_for(state="visible")
        expect(account.get_by_text("Carol Caster (@carol)", exact=True)).to_be_visible()
        address = re.search(r'"address":"(0x[0-9a-fA-F]{40})"', page.locator("#account").inner_text())
        assert address is not None
        domain = farcaster_host.split("://", 1)[1]
        stored = httpx.get(f"{farcaster_engine.http_url}/v1/sessions/{address.group(1)}",
                           params={"domain": domain}).json()
    finally:
        context.close()
    [session] = stored
    nonce = parse_qs(urlsplit(url).query)["nonce"][0]
    [result] = independent_check("siwe-py", [{"text": session["message"], "signature": session["signature"],
                                               "domain": domain, "nonce": nonce,
                                               "time": iso_from_ms(int(time.time() * 1000))}])
    assert result["verified"], result["error"]
    assert (result["fields"]["address"], result["fields"]["uri"]) == (address.group(1), farcaster_host)


def test_with_a_host_statement_the_farcaster_approval_then_approve_signs_in(
        browser: Any, farcaster_host: str, farcaster_relay: RunningServer) -> None:
    """A statement the Farcaster client did not show is never signed at once: the sign-in is the
    embedded account's own signature approved in the engine-origin frame; Connect's frame key was
    registered by the Farcaster answer, so Approve is enabled at once."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page, frame, _ = _sign_in_required_to_approval(context, farcaster_host, farcaster_relay, 3)
        expect(frame.get_by_role("button", name="Approve")).to_be_enabled()
        assert frame.locator("#farcaster-qr").count() == 0
        frame.get_by_role("button", name="Approve").click()
        _signed_in_as_the_embedded_account(page, 3)
    finally:
        context.close()


def test_a_browser_whose_key_is_gone_verifies_with_farcaster_in_the_approval_frame(
        browser: Any, farcaster_host: str, farcaster_relay: RunningServer) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    # the approval frame finds no key (a cleared profile): it makes a new one, not registered
    context.add_init_script("if (location.pathname === '/embedded/approve') indexedDB.deleteDatabase('modalcore-keys');")
    try:
        page, frame, first = _sign_in_required_to_approval(context, farcaster_host, farcaster_relay, 1)
        expect(frame.locator("#farcaster-qr svg")).to_be_visible()  # drawn inside the frame
        expect(frame.get_by_role("button", name="Approve")).to_be_disabled()
        _approve_in_client(context, farcaster_relay, 1, known=frozenset({first}))
        expect(frame.get_by_role("button", name="Approve")).to_be_enabled()
        frame.get_by_role("button", name="Approve").click()
        _signed_in_as_the_embedded_account(page, 1)
    finally:
        context.close()


def test_issue39_desktop_farcaster_offers_copy_link_and_the_phone_view_is_tight_and_on_palette(
        browser: Any, farcaster_host: str) -> None:
    """Issue 39 item 9: on a computer the QR has its Copy link (AppKit's), which puts the channel's
    farcaster:// link on the clipboard; on a phone the frame holding Open Farcaster is no taller
    than the button (no large gap) and the button is drawn in the modal's accent, not Farcaster's
    own purple. Screenshots in artifacts/walk39/."""
    from playwright.sync_api import expect

    from .test_phone_browser import PHONE_UA

    shots = Path(__file__).resolve().parents[2] / "artifacts" / "walk39"
    shots.mkdir(parents=True, exist_ok=True)
    desk = browser.new_context(viewport={"width": 1280, "height": 800})
    desk.set_default_timeout(TIMEOUT_MS)
    desk.grant_permissions(["clipboard-read", "clipboard-write"])
    try:
        page = desk.new_page()
        page.goto(farcaster_host)
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        page.locator('.wm-card[data-view="Connect"]').get_by_role("button", name="Continue with Farcaster").click()
        frame = page.frame_locator("iframe.wm-frame")
        expect(frame.locator("#farcaster-qr svg")).to_be_visible()
        page.screenshot(path=str(shots / "farcaster-desktop.png"))
        frame.get_by_role("button", name="Copy link").click()
        expect(frame.get_by_text("Link copied")).to_be_visible()
        assert str(page.evaluate("navigator.clipboard.readText()")).startswith("farcaster://connect")
    finally:
        desk.close()
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                user_agent=PHONE_UA)
    phone.set_default_timeout(TIMEOUT_MS)
    try:
        page = phone.new_page()
        page.goto(farcaster_host)
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        page.locator('.wm-card[data-view="Connect"]').get_by_role("button", name="Continue with Farcaster").click()
        frame = page.frame_locator("iframe.wm-frame")
        button = frame.locator("#farcaster-open")
        expect(button).to_be_visible()
        page.wait_for_timeout(300)  # the frame's height message
        page.screenshot(path=str(shots / "farcaster-phone.png"))
        height = page.locator("iframe.wm-frame").evaluate("(f) => f.getBoundingClientRect().height")
        assert height <= 80, f"the frame is {height}px tall for one button"
        background = button.evaluate("(b) => getComputedStyle(b).backgroundColor")
        assert background != "rgb(138, 99, 210)", background  # Farcaster's purple, off the modal's palette
    finally:
        phone.close()
