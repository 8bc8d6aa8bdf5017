"""Continue on your phone in Chromium (issue 44 item 1): a desktop visitor (1280x800) signed in
with the embedded wallet on Hardhat opens "Continue on your phone"; a phone (390x844, mobile
emulation) opens the link, both screens show the same code, the desktop confirms it. Once linked,
the phone draws the session's own modal (a companion connection, PROTOCOL.md "Companion"): a
press on either screen moves both. A send started in the phone's modal waits on the desktop
("Waiting for your phone", no approval there) and is approved by a click inside the phone's
modal (its approval frame, signed with the phone's key); one transaction lands, both screens
show the result, and the host page saw one continuous account. A third browser with the leaked link is
refused, typed, and nothing changes; it cannot join as the companion either.

Writes docs/screenshots/issue44-continue-*.png (docs/features/continue-on-phone.md)."""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import re
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from modalcore.netports import free_port
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import RunningServer, serve_app

from .conftest import REPO_ROOT, TIMEOUT_MS, Relay, requested_navigations, serve
from .test_embedded_browser import embedded_engine_config, sign_in_by_email
from .test_walletconnect_browser import Wallet

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

SHOTS = REPO_ROOT / "docs" / "screenshots"
DEV_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"  # the wallet peer's (Hardhat account #0)
RECEIVER = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"
PHONE_UA = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
            "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")

HOST_PAGE = """<!doctype html><html><head><meta charset=utf-8><title>Host dApp</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,">
<style>pre{white-space:pre-wrap;overflow-wrap:anywhere}</style></head><body>
<button id=open>Open</button><pre id=account></pre>
<script src="%(engine)s/static/modal.js"></script>
<script>
  const modal = window.ModalCore.createModal({projectId: 'demo', networks: ['eip155:31337'],
    engineUrl: '%(engine)s', features: {continueOnPhone: true}});
  window.hostModal = modal;
  window.accountEvents = [];
  modal.subscribeAccount((a) => { window.accountEvents.push(a);
    document.getElementById('account').textContent = JSON.stringify(a); });
  document.getElementById('open').onclick = () => modal.open();
</script></body></html>"""


@pytest.fixture(scope="module")
def smtp() -> Iterator[LocalSmtpServer]:
    server = LocalSmtpServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def engine(devchains: ChainsInfo, smtp: LocalSmtpServer, wc_relay: Relay,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    folder = tmp_path_factory.mktemp("handoff-e2e")
    config = embedded_engine_config(folder, devchains, {
        "smtp": {"host": "127.0.0.1", "port": smtp.port, "tls": "none", "sender": "Wallet <no-reply@modal.test>"},
    }, walletconnect={"relay_url": wc_relay.url})
    with serve(config, free_port()) as running:
        yield running


@pytest.fixture(scope="module")
def host_site(engine: RunningServer) -> Iterator[str]:
    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(HOST_PAGE % {"engine": engine.http_url})

    with serve_app(Starlette(routes=[Route("/", page)])) as running:
        yield running.http_url


@contextlib.contextmanager
def context_of(browser: Any, *, phone: bool = False) -> Iterator[Any]:
    if phone:
        context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                      is_mobile=True, has_touch=True, user_agent=PHONE_UA)
    else:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.grant_permissions(["clipboard-read", "clipboard-write"])
    context.set_default_timeout(TIMEOUT_MS)
    try:
        yield context
    finally:
        context.close()


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"issue44-continue-{name}.png"))


def _fresh_key() -> str:
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    spki = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.urlsafe_b64encode(spki).rstrip(b"=").decode()


def _accounts(page: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate("window.accountEvents")
    return found


def test_a_send_started_on_the_desktop_is_approved_on_the_phone_and_a_leaked_link_is_refused(
        browser: Any, host_site: str, smtp: LocalSmtpServer, engine: RunningServer, devchain: ChainsInfo,
        caplog: pytest.LogCaptureFixture) -> None:
    from playwright.sync_api import expect

    caplog.set_level(logging.INFO)
    with context_of(browser) as desktop_context, context_of(browser, phone=True) as phone_context, \
            context_of(browser, phone=True) as third_context:
        desktop = desktop_context.new_page()
        desktop.goto(host_site)
        desktop.wait_for_function("window.hostModal !== undefined")
        sign_in_by_email(desktop, smtp, "mia@example.com")
        found = re.search(r'"address":"(0x[0-9a-fA-F]{40})"', desktop.locator("#account").inner_text())
        assert found is not None
        address = found.group(1)
        with devchain.rpc(31337) as rpc:
            rpc.call("hardhat_setBalance", [address, hex(2 * 10**18)])
            before = int(rpc.call("eth_getBalance", [RECEIVER, "latest"]), 16)
        desktop.reload()
        desktop.wait_for_function("window.hostModal !== undefined")
        desktop.wait_for_function("document.getElementById('account').textContent.includes('2.000 ETH')")
        events_before = len(_accounts(desktop))

        # the desktop: Account → "Continue on your phone" → the QR code and Copy link
        desktop.click("#open")
        account = desktop.locator('.wm-card[data-view="Account"]')
        account.wait_for(state="visible")
        account.get_by_role("button", name="Continue on your phone").click()
        offer = desktop.locator('.wm-card[data-view="ContinueOnPhone"]')
        offer.get_by_role("button", name="Copy link").wait_for(state="visible")
        _shot(desktop, "desktop-qr")
        offer.get_by_role("button", name="Copy link").click()
        expect(desktop.locator(".wm-card").get_by_text("Link copied")).to_be_visible()
        link = desktop.evaluate("navigator.clipboard.readText()")
        assert link.startswith(f"{engine.http_url}/continue/"), link

        # the phone opens it: its own key claims the link; both screens show the same code
        phone = phone_context.new_page()
        phone.goto(link)
        code = phone.locator("#code")
        expect(code).to_have_text(re.compile(r"^\d{3} \d{3}$"))
        shown = code.inner_text()
        expect(offer.get_by_text("Does your phone show this code?")).to_be_visible()
        expect(offer.get_by_text(shown, exact=True)).to_be_visible()
        _shot(phone, "phone-code")

        # a third browser with the leaked link: refused, typed, and nothing changes
        third = third_context.new_page()
        response = third.goto(link)
        assert response is not None and response.status == 410
        expect(third.locator("body")).to_have_attribute("data-refusal", "used_link")
        expect(third.get_by_text("This link was already used.")).to_be_visible()
        # its own key, claimed as the engine's page would (the headers a server could forge too)
        claim = third_context.request.post(f"{engine.http_url}/continue/claim", data=json.dumps({
            "link": link.removeprefix(engine.http_url + "/continue/"), "public_key": _fresh_key()}),
            headers={"Content-Type": "application/json", "Origin": engine.http_url, "Sec-Fetch-Site": "same-origin"})
        assert (claim.status, claim.json()["error"]) == (410, "used_link")
        expect(offer.get_by_text(shown, exact=True)).to_be_visible()  # the desktop still asks about the phone's code

        # the host's server (it sees the session id and can forge any header) cannot say yes for
        # the visitor: it has no key registered for the visitor's account
        session = link.removeprefix(engine.http_url + "/continue/").rsplit(".", 1)[0]
        forged = {"Content-Type": "application/json", "Origin": engine.http_url, "Sec-Fetch-Site": "same-origin"}
        forger = _fresh_key()
        began = third_context.request.post(f"{engine.http_url}/continue-confirm/begin", headers=forged,
                                           data=json.dumps({"session": session, "public_key": forger}))
        assert began.status == 200 and began.json()["registered"] is False
        said_yes = third_context.request.post(f"{engine.http_url}/continue-confirm", headers=forged, data=json.dumps({
            "session": session, "nonce": began.json()["nonce"], "seen": f"visible 900 {host_site.rstrip('/')}",
            "public_key": forger, "signature": "AAAA"}))
        assert (said_yes.status, said_yes.json()["error"]) == (403, "not a key of this wallet")
        expect(offer.get_by_text("Does your phone show this code?")).to_be_visible()

        # the visitor's Yes, in the engine's own frame, with this browser's key
        yes = offer.frame_locator("iframe.wm-frame").get_by_role("button", name="Yes, it does")
        expect(yes).to_be_enabled()
        _shot(desktop, "desktop-code")
        yes.click()
        expect(phone.locator("#state")).to_contain_text("Connected")
        account.wait_for(state="visible")
        expect(account.get_by_role("button", name="Continue on your phone")).to_have_count(0)

        # the phone draws the session's modal (a companion connection, PROTOCOL.md "Companion"):
        # a press on the phone moves the desktop, a press on the desktop moves the phone
        on_phone = phone.locator('#modal .wm-card[data-view="Account"]')
        on_phone.wait_for(state="visible")
        _shot(phone, "phone-modal")
        # the third browser cannot join as the companion: its key is not the one the desktop confirmed
        nonce = third_context.request.post(f"{engine.http_url}/continue/companion", data=json.dumps({
            "link": link.removeprefix(engine.http_url + "/continue/"), "public_key": _fresh_key()}), headers=forged)
        assert (nonce.status, nonce.json()["error"]) == (403, "not_linked")
        on_phone.get_by_role("button", name="Receive", exact=True).click()
        desktop.locator('.wm-card[data-view="WalletReceive"]').wait_for(state="visible")
        phone.locator('#modal .wm-card[data-view="WalletReceive"]').wait_for(state="visible")
        desktop.locator(".wm-card").get_by_role("button", name="Back").click()
        on_phone.wait_for(state="visible")
        account.wait_for(state="visible")

        # a send started on the phone's modal, filled on the desktop, waits for the phone
        on_phone.get_by_role("button", name="Send", exact=True).click()
        form = desktop.locator('.wm-card[data-view="WalletSend"]')
        form.wait_for(state="visible")
        form.get_by_role("button", name="ETH").first.wait_for()
        form.get_by_role("textbox", name="Amount").fill("0.25")
        form.get_by_role("textbox", name="Receiver address").fill(RECEIVER)
        form.get_by_role("button", name="Preview send").click()
        preview = desktop.locator('.wm-card[data-view="WalletSendPreview"]')
        preview.get_by_role("button", name="Send", exact=True).click()
        approval = desktop.locator('.wm-card[data-view="ApproveTransaction"]')
        expect(approval.get_by_text("Waiting for your phone")).to_be_visible()
        assert desktop.locator("iframe.wm-frame").count() == 0
        assert desktop.get_by_role("button", name="Approve").count() == 0, "the desktop could approve"
        # the phone approves inside its own modal: the approval frame its screen alone draws
        on_phone_approval = phone.locator('#modal .wm-card[data-view="ApproveTransaction"]')
        on_phone_approval.wait_for(state="visible")
        expect(on_phone_approval.get_by_text("Waiting for your phone")).to_have_count(0)
        inside = phone.frame_locator('#modal .wm-card[data-view="ApproveTransaction"] iframe.wm-frame')
        approve = inside.get_by_role("button", name="Approve")
        expect(approve).to_be_enabled()
        expect(inside.locator("dd", has_text="0.25 ETH")).to_be_visible()
        expect(inside.locator("#outcome")).to_contain_text("\u22120.25 ETH")  # the outcome, as the frame shows it
        expect(inside.get_by_text(RECEIVER)).to_be_visible()
        _shot(desktop, "desktop-waiting")
        _shot(phone, "phone-approve")
        with devchain.rpc(31337) as rpc:
            assert int(rpc.call("eth_getTransactionCount", [address, "latest"]), 16) == 0
        approve.click()
        deadline = time.monotonic() + 15
        with devchain.rpc(31337) as rpc:
            while int(rpc.call("eth_getBalance", [RECEIVER, "latest"]), 16) != before + 25 * 10**16:
                assert time.monotonic() < deadline, "the send never reached the receiver"
                time.sleep(0.05)
            assert int(rpc.call("eth_getTransactionCount", [address, "latest"]), 16) == 1
        # both screens show the result
        expect(approval).to_have_count(0)
        expect(desktop.locator(".wm-card").get_by_text("Transaction sent")).to_be_visible()
        expect(phone.locator("#modal .wm-card").get_by_text("Transaction sent")).to_be_visible()
        _shot(desktop, "desktop-done")
        _shot(phone, "phone-done")

        # the host page saw one continuous session: one account, connected all along
        events = _accounts(desktop)[events_before:]
        assert {json.dumps([e.get("address"), e.get("isConnected")]) for e in events} <= {
            json.dumps([address, True])}, events
    assert not [r for r in caplog.records if r.exc_info], "a refusal logged a traceback"
    assert any("used_link" in r.getMessage() for r in caplog.records)


def test_a_desktop_with_no_account_links_the_phone_whose_wallet_app_connects(
        browser: Any, host_site: str, engine: RunningServer, wc_relay: Relay, devchain: ChainsInfo) -> None:
    """No extension, not signed in: the modal's own Yes links the phone (it gets only the host
    page's powers); the phone's modal opens MetaMask's deep link (Open, on the phone only); the
    wallet app (the real sign-client peer) pairs with its URI; both screens show the account and
    the host page gets one account event."""
    from playwright.sync_api import expect

    with context_of(browser) as desktop_context, context_of(browser, phone=True) as phone_context:
        desktop = desktop_context.new_page()
        desktop.goto(host_site)
        desktop.wait_for_function("window.hostModal !== undefined")
        desktop.click("#open")
        connect = desktop.locator('.wm-card[data-view="Connect"]')
        connect.get_by_role("button", name="Continue on your phone").click()
        offer = desktop.locator('.wm-card[data-view="ContinueOnPhone"]')
        offer.get_by_role("button", name="Copy link").click()
        expect(desktop.locator(".wm-card").get_by_text("Link copied")).to_be_visible()
        link = desktop.evaluate("navigator.clipboard.readText()")

        phone = phone_context.new_page()
        navigations = requested_navigations(phone_context, phone)
        phone.goto(link)
        expect(phone.locator("#code")).to_have_text(re.compile(r"^\d{3} \d{3}$"))
        shown = phone.locator("#code").inner_text()
        expect(offer.get_by_text(shown, exact=True)).to_be_visible()
        # no account: Yes is a button of the modal, no frame
        yes = offer.get_by_role("button", name="Yes, it does")
        expect(yes).to_be_visible()
        assert offer.locator("iframe.wm-frame").count() == 0
        _shot(desktop, "noaccount-desktop-code")
        yes.click()
        expect(phone.locator("#state")).to_contain_text("Connected")

        # the phone's modal: All Wallets → MetaMask → Open (the deep link, on the phone)
        on_phone = phone.locator('#modal .wm-card[data-view="Connect"]')
        on_phone.get_by_role("button", name="All Wallets").click()
        wallets = phone.locator('#modal .wm-card[data-view="AllWallets"]')
        wallets.get_by_role("searchbox").or_(wallets.get_by_role("textbox")).first.fill("metamask")
        wallets.get_by_role("button", name=re.compile("^MetaMask")).first.click()
        wallet_page = phone.locator('#modal .wm-card[data-view="WalletPage"]')
        open_app = wallet_page.get_by_role("button", name="Open", exact=True)
        expect(open_app).to_be_enabled()
        assert wallet_page.locator(".wm-qr").count() == 0
        expect(desktop.locator('.wm-card[data-view="WalletPage"] .wm-qr')).to_be_visible()  # the computer: a QR code
        _shot(phone, "noaccount-phone-open")
        events_before = len(_accounts(desktop))
        open_app.click()
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while not [u for u in navigations if u.startswith("metamask://wc?uri=")]:
            assert time.monotonic() < deadline, f"no deep link opened on the phone: {navigations}"
            phone.wait_for_timeout(100)
        opened = [u for u in navigations if u.startswith("metamask://wc?uri=")][0]

        # the wallet app follows it: pairs with the session's client and approves
        wallet = Wallet(wc_relay.url, devchain.rpc_urls)
        try:
            wallet.send(cmd="pair", uri=unquote(opened.removeprefix("metamask://wc?uri=")))
            wallet.wait("approved")
            desktop.wait_for_function("window.accountEvents.some((a) => a.isConnected)")
            # the modal closed on connecting, on both screens; opened again, both show the account
            desktop.click("#open")
            desktop.locator('.wm-card[data-view="Account"]').wait_for(state="visible")
            phone.locator('#modal .wm-card[data-view="Account"]').wait_for(state="visible")
            _shot(desktop, "noaccount-desktop-account")
            _shot(phone, "noaccount-phone-account")
        finally:
            wallet.stop()
        connected = [e for e in _accounts(desktop)[events_before:] if e.get("isConnected")]
        assert {e.get("address") for e in connected} == {DEV_ADDRESS}, connected
        assert {json.dumps([e.get("address"), e.get("isConnected")]) for e in connected} == {json.dumps([DEV_ADDRESS, True])}
