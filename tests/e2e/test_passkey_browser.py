"""Issue 43 §3 in Chromium, with the DevTools virtual authenticator (CDP `WebAuthn`): a visitor
signed in by email adds a passkey in the Account view's engine-origin frame; a fresh browser
profile holding the same credential (exported with `WebAuthn.getCredentials`, private key
included, and imported with `WebAuthn.addCredential`) signs in with it from Connect's frame with
no email typed (a discoverable credential: the engine finds the account), to the same address,
and approves a send with it (one transaction on the dev chain); a cloned authenticator (the
credential with its old signature counter) is refused, here on EmailVerifyOtp's frame.

WebAuthn takes no IP address as relying party: the engine is reached as `localhost`, and so is
the host page (another port: another origin, so every ceremony runs in a cross-origin frame).
"""

from __future__ import annotations

import contextlib
import re
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
from modalcore_testing import RunningServer, serve_app
from modalcore_testing.chromium import sync_chromium

from .conftest import TIMEOUT_MS
from .test_embedded_browser import HOST_PAGE, embedded_dir, embedded_engine, sign_in_by_email, smtp  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

# the loopback rule of the other tests, and `localhost` (the engine's host here)
RESOLVER = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"
AUTHENTICATOR = {"protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
                 "isUserVerified": True, "automaticPresenceSimulation": True}
RECEIVER = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"


@pytest.fixture(scope="module")
def passkey_browser(renderer_dist: Any) -> Iterator[Any]:
    with sync_chromium(RESOLVER) as b:
        yield b


@pytest.fixture(scope="module")
def engine_url(embedded_engine: RunningServer) -> str:
    return embedded_engine.http_url.rstrip("/").replace("127.0.0.1", "localhost")


@pytest.fixture(scope="module")
def passkey_host(engine_url: str) -> Iterator[str]:
    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(HOST_PAGE % {"engine": engine_url, "siwx": "", "theme": ""})

    with serve_app(Starlette(routes=[Route("/", page)])) as running:
        # the same site as the engine (ports differ): Chromium here keeps a third-party frame
        # from IndexedDB ("The user denied permission to access the database"), where the
        # frame's device key lives
        yield running.http_url.replace("127.0.0.1", "localhost")


@contextlib.contextmanager
def profile(browser: Any, url: str, credential: dict[str, Any] | None = None,
            viewport: tuple[int, int] = (1280, 800)) -> Iterator[tuple[Any, Any, str]]:
    """A fresh browser profile (context) with a virtual platform authenticator, holding
    `credential` when given: (page, CDP session, authenticator id)."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable", {"enableUI": False})
    authenticator = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})["authenticatorId"]
    if credential is not None:
        cdp.send("WebAuthn.addCredential", {"authenticatorId": authenticator, "credential": credential})
    page.goto(url)
    page.wait_for_function("window.hostModal !== undefined")
    try:
        yield page, cdp, authenticator
    finally:
        context.close()


def credentials(cdp: Any, authenticator: str) -> list[dict[str, Any]]:
    return list(cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"])


def connect_passkey_frame(page: Any) -> Any:
    """Open → Connect: the "Sign in with a passkey" frame under the email field."""
    page.click("#open")
    card = page.locator('.wm-card[data-view="Connect"]')
    card.wait_for(state="visible")
    return page.frame_locator('.wm-card[data-view="Connect"] iframe.wm-frame')


def to_code_view(page: Any, email: str) -> Any:
    """Open → email → Continue: EmailVerifyOtp's engine-origin frame."""
    page.click("#open")
    card = page.locator('.wm-card[data-view="Connect"]')
    card.get_by_label("Email").fill(email)
    card.get_by_role("button", name="Continue").click()
    page.locator('.wm-card[data-view="EmailVerifyOtp"]').wait_for(state="visible")
    return page.frame_locator('.wm-card[data-view="EmailVerifyOtp"] iframe.wm-frame')


def connected_address(page: Any) -> str:
    page.wait_for_function("document.getElementById('account').textContent.includes('\"isConnected\":true')")
    found = re.search(r'"address":"(0x[0-9a-fA-F]{40})"', page.locator("#account").inner_text())
    assert found is not None
    return found.group(1)


@pytest.mark.parametrize(("viewport", "email"), [((1280, 800), "kai@example.com"), ((390, 844), "kim@example.com")],
                         ids=["1280x800", "390x844"])
def test_a_passkey_signs_in_a_fresh_profile_and_approves_a_send_and_a_clone_is_refused(
        passkey_browser: Any, passkey_host: str, smtp: LocalSmtpServer, devchain: ChainsInfo,
        viewport: tuple[int, int], email: str) -> None:
    size = f"{viewport[0]}x{viewport[1]}"
    # 1. signed in by the mailed code; Account → "Add a passkey" (the engine-origin frame)
    with profile(passkey_browser, passkey_host, viewport=viewport) as (page, cdp, authenticator):
        sign_in_by_email(page, smtp, email)
        address = connected_address(page)
        page.click("#open")
        account = page.locator('.wm-card[data-view="Account"]')
        account.wait_for(state="visible")
        frame = page.frame_locator('.wm-card[data-view="Account"] iframe.wm-frame')
        frame.get_by_role("button", name="Add a passkey").click()
        frame.get_by_text("Passkey added").wait_for(state="visible")
        page.screenshot(path=str(_shot(f"passkey-added-{size}.png")))
        held = credentials(cdp, authenticator)
        assert len(held) == 1 and held[0]["rpId"] == "localhost" and held[0]["isResidentCredential"]
        registered = held[0]  # with its private key: the same credential on another device
        mailed = len(smtp.mailbox.to(email))

    with devchain.rpc(31337) as rpc:
        rpc.call("hardhat_setBalance", [address, hex(2 * 10**18)])
        before = int(rpc.call("eth_getBalance", [RECEIVER, "latest"]), 16)

    # 2. a fresh profile holding the credential: from Connect, no email typed, no code: signs
    # in to the same address, then approves a send
    assert registered.get("userHandle")  # a discoverable credential keeps the engine's user id
    with profile(passkey_browser, passkey_host, registered, viewport) as (page, cdp, authenticator):
        frame = connect_passkey_frame(page)
        button = frame.get_by_role("button", name="Sign in with a passkey")
        button.wait_for(state="visible")
        assert page.locator('.wm-card[data-view="Connect"]').get_by_label("Email").input_value() == ""
        page.wait_for_timeout(300)  # the frame fitted to its button
        page.screenshot(path=str(_shot(f"passkey-connect-{size}.png")))
        started = time.monotonic()
        button.click()
        assert connected_address(page) == address
        print(f"passkey on Connect: click → connected {1000 * (time.monotonic() - started):.0f} ms ({size})")
        assert len(smtp.mailbox.to(email)) == mailed  # no email round trip
        page.evaluate("""([from, to]) => { window.sent = window.hostModal.getProvider().request(
            {method: 'eth_sendTransaction', params: [{from, to, value: '0x3782dace9d90000'}]}); }""",
                      [address, RECEIVER])
        page.locator('.wm-card[data-view="ApproveTransaction"]').wait_for(state="visible")
        approval = page.frame_locator("iframe.wm-frame")
        approval.locator("dd", has_text="0.25 ETH").wait_for(state="visible")  # the decoded row
        page.wait_for_timeout(600)  # Chromium drops clicks on a cross-origin frame that just moved
        page.screenshot(path=str(_shot(f"passkey-approve-{size}.png")))
        approval.get_by_role("button", name="Approve").click()
        deadline = time.monotonic() + 15
        with devchain.rpc(31337) as rpc:
            while int(rpc.call("eth_getBalance", [RECEIVER, "latest"]), 16) != before + 25 * 10**16:
                assert time.monotonic() < deadline, "the send never reached the receiver"
                time.sleep(0.05)
        assert credentials(cdp, authenticator)[0]["signCount"] > registered["signCount"] + 1

    # 3. a clone: the same credential with the counter it had when copied, refused
    with profile(passkey_browser, passkey_host, registered, viewport) as (page, _, __):
        frame = to_code_view(page, email)
        frame.get_by_role("button", name="Sign in with a passkey").click()
        frame.get_by_text("This passkey cannot sign in here").wait_for(state="visible")
        assert '"isConnected":true' not in page.locator("#account").inner_text()


def _shot(name: str) -> Any:
    from .conftest import REPO_ROOT
    folder = REPO_ROOT / "artifacts" / "passkeys"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name
