"""Issue 15 §2 in Chromium: social sign-in through the local OpenID provider (oidcprovider/,
panva's oidc-provider, the same code path a real provider takes). The host dApp is on its own
origin; pressing "Continue with Google" on Connect opens the provider in a popup (issue 39: one
press, at desktop and phone sizes), the visitor logs in there, the provider redirects to the
callback the engine serves, and the modal reaches Account showing who signed in. Issue 27: the
popup reports back to a frame of the engine's origin (it is handed to that frame when the host
page's click opened it); that frame's key, registered then, is what approves. A blocked window
leaves the frame's own button: two presses, and the texts say so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devoidc import DevOidcProvider
from modalcore_testing import RunningServer, serve_app

from .conftest import ARTIFACTS, TIMEOUT_MS, host_connected, serve, sign_in_at_provider
from .test_embedded_browser import HOST_PAGE, embedded_engine_config

SHOTS = ARTIFACTS  # artifacts/screenshots; the committed copies are in docs/screenshots
pytestmark = [pytest.mark.e2e, pytest.mark.chain]


@pytest.fixture(scope="module")
def social_engine(devchains: ChainsInfo, provider: DevOidcProvider, engine_port: int,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    folder: Path = tmp_path_factory.mktemp("social-e2e")
    config = embedded_engine_config(folder, devchains, {
        "public_url": f"http://127.0.0.1:{engine_port}",
        "socials": {"google": {"issuer": provider.issuer, "client_id": provider.client_id}},
    })
    with serve(config, engine_port) as running:
        yield running


@pytest.fixture(scope="module")
def social_host(social_engine: RunningServer) -> Iterator[str]:
    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(HOST_PAGE % {"engine": social_engine.http_url, "siwx": "", "theme": ""})

    with serve_app(Starlette(routes=[Route("/", page)])) as running:
        yield running.http_url


PHONE_UA = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/120.0.0.0 Mobile Safari/537.36")
SIZES: dict[str, dict[str, Any]] = {"desktop": {"viewport": {"width": 1280, "height": 800}},
         "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
                   "user_agent": PHONE_UA}}
# the host page's window.open refuses (a popup blocker): only the host's, not the engine frame's
BLOCK_HOST_POPUPS = "if (location.origin === %r) window.open = () => null;"


def _count_popups(context: Any) -> list[Any]:
    opened: list[Any] = []
    context.on("page", lambda page: opened.append(page))
    return opened


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_one_press_on_connect_opens_the_provider_and_signs_in(
        browser: Any, social_host: str, provider: DevOidcProvider, size: str) -> None:
    """Issue 39 item 5: one press on Connect's "Continue with Google" opens the provider's sign-in
    window (no second button to press), and the texts say what is on screen."""
    from playwright.sync_api import expect

    context = browser.new_context(**SIZES[size])
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        opened = _count_popups(context)  # every page opened after the host's
        page.goto(social_host)
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        card = page.locator('.wm-card[data-view="Connect"]')
        card.wait_for(state="visible")
        with page.expect_popup(timeout=TIMEOUT_MS) as window:
            card.get_by_role("button", name="Continue with Google").click()
        popup = window.value
        popup.wait_for_url(provider.issuer + "/**")  # the engine's window handed itself to the frame
        social = page.locator('.wm-card[data-view="ConnectingSocial"]')
        frame = page.frame_locator("iframe.wm-frame")
        expect(frame.get_by_text("Connect in the provider window")).to_be_visible()  # and one is open
        expect(social.locator(".wm-spinner")).to_have_count(0)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"issue39-social-one-press-{size}.png"))
        sign_in_at_provider(popup, provider)
        host_connected(page)
        assert '"connector":"ID_AUTH"' in page.locator("#account").inner_text()
        assert len(opened) == 1, [p.url for p in opened]  # one window, from one press
    finally:
        context.close()


def test_a_closed_window_is_said_and_the_frames_button_opens_another(
        browser: Any, social_host: str, provider: DevOidcProvider) -> None:
    """Issue 39 item 5: the text matches the screen: the visitor closes the window one press
    opened, and the frame says so; its own button opens another and the sign-in goes on."""
    from playwright.sync_api import expect

    context = browser.new_context(**SIZES["desktop"])
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(social_host)
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        with page.expect_popup(timeout=TIMEOUT_MS) as window:
            page.locator('.wm-card[data-view="Connect"]').get_by_role("button", name="Continue with Google").click()
        window.value.wait_for_url(provider.issuer + "/**")
        frame = page.frame_locator("iframe.wm-frame")
        expect(frame.get_by_text("Connect in the provider window")).to_be_visible()
        window.value.close()
        expect(frame.get_by_text("The sign-in window was closed")).to_be_visible()
        with page.expect_popup(timeout=TIMEOUT_MS) as again:
            frame.get_by_role("button", name="Continue with Google").click()
        again.value.wait_for_url(provider.issuer + "/**")
        expect(frame.get_by_text("Connect in the provider window")).to_be_visible()
    finally:
        context.close()


def test_a_blocked_window_leaves_the_frames_button_and_google_sign_in_reaches_account(
        browser: Any, social_host: str, provider: DevOidcProvider) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)  # every wait is bounded
    context.add_init_script(BLOCK_HOST_POPUPS % social_host.rstrip("/"))
    try:
        page = context.new_page()
        page.goto(social_host)
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        card = page.locator('.wm-card[data-view="Connect"]')
        card.wait_for(state="visible")
        card.get_by_text("Continue with Google").click()  # its window is refused (a popup blocker)
        # issue 27: the popup is opened by the engine-origin frame, and reports back to it
        social = page.locator('.wm-card[data-view="ConnectingSocial"]')
        social.wait_for(state="visible")
        # issue 39: no window is open yet, and nothing says one is (no spinner, no "Connect in
        # the provider window"): the frame's button opens it
        expect(social.get_by_text("The sign-in opens in a new window")).to_be_visible()
        expect(social.get_by_text("Connect in the provider window")).to_have_count(0)
        expect(social.locator(".wm-spinner")).to_have_count(0)
        frame = page.frame_locator("iframe.wm-frame")
        frame.get_by_role("button", name="Continue with Google").wait_for(state="visible")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "issue39-social-after-desktop.png"))
        with page.expect_popup(timeout=TIMEOUT_MS) as opened:
            frame.get_by_role("button", name="Continue with Google").click()
        popup = opened.value
        expect(frame.get_by_text("Connect in the provider window")).to_be_visible()  # now one is
        popup.wait_for_url(provider.issuer + "/**")  # the provider's own login page (after about:blank)
        sign_in_at_provider(popup, provider)
        host_connected(page)
        assert '"connector":"ID_AUTH"' in page.locator("#account").inner_text()
        if not popup.is_closed():  # the engine's callback page closes its popup itself
            popup.wait_for_event("close", timeout=TIMEOUT_MS)
        page.click("#open")
        account = page.locator('.wm-card[data-view="Account"]')
        account.wait_for(state="visible")
        # the provider's ID token carries zoe's email (as Google's does): Account names her by it
        expect(account.get_by_text("zoe@oidc.test")).to_be_visible()
        provider_requests(page)
    finally:
        context.close()


def provider_requests(page: Any) -> None:
    """The host dApp's own EIP-1193 provider reaches the embedded wallet (issue 15 §4): a safe
    method is answered, a method on neither list is refused, personal_sign is approved only by
    the button inside the engine-origin frame."""
    from playwright.sync_api import expect

    page.evaluate("window.hostModal.close()")
    page.locator('.wm-card[data-view="Account"]').wait_for(state="hidden")
    assert page.evaluate("window.hostModal.getProvider().request({method: 'eth_chainId'})") == "0x7a69"
    refused = page.evaluate("""window.hostModal.getProvider().request({method: 'eth_sign', params: ['0x00', '0x00']})
        .then(() => 'resolved', (e) => `${e.code} ${e.message}`)""")
    assert refused == "4200 Requested RPC call is not allowed"
    [address] = page.evaluate("window.hostModal.getProvider().request({method: 'eth_accounts'})")
    page.evaluate("""(a) => { window.signed = undefined; window.hostModal.getProvider()
        .request({method: 'personal_sign', params: ['0x68656c6c6f', a]})
        .then((r) => { window.signed = r; }, (e) => { window.signed = `failed ${e.code}`; }); }""", address)
    frame = page.frame_locator("iframe.wm-frame")
    # issue 28 item 9: a message approval says so, and shows the message as its text
    card = page.locator('.wm-card[data-view="ApproveTransaction"]')
    expect(card.locator(".wm-header")).to_contain_text("Sign message")
    expect(frame.get_by_role("heading", name="Sign message")).to_be_visible()
    expect(frame.locator("dd", has_text="hello")).to_have_text("hello")
    frame.get_by_role("button", name="Approve").click()  # the key the sign-in frame registered
    page.wait_for_function("window.signed !== undefined")  # bounded by the context's timeout
    signature = page.evaluate("window.signed")
    assert Account.recover_message(encode_defunct(text="hello"), signature=signature) == address
