"""Issue 28 items 4 and 5 in Chromium, on the demo page composed as `make run` composes it: the
Dev Wallet installed, email sign-in, and the local OpenID provider as every OAuth social
provider. At 1280×800 Connect shows every method without an inner scroll (the card body's
scrollHeight fits its clientHeight, each method inside the viewport); the socials are Google wide
and a row of marks; "?" leads to "What is a wallet?"; a mark (X) signs in through its own client
of the local provider."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_dev.devoidc import DevOidcProvider
from modalcore.embedded.masterkey import MasterKey
from modalcore.netports import free_port
from modalcore.rules.embedded import SOCIAL_PROVIDERS
from modalcore.server.config import dev_networks, parse_config
from modalcore_testing import RunningServer, serve_app
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from .checks import clipped, outside
from .conftest import ARTIFACTS, HOST, SECRET, TIMEOUT_MS, Demo, serve, watch

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

ROOT = "document.querySelector('modalcore-modal').shadowRoot"
# The card body's scroll box and where each method's control is, in the viewport.
MEASURE = """(ids) => {
  const root = %s;
  const body = root.querySelector('.wm-card .wm-body');
  const card = root.querySelector('.wm-card').getBoundingClientRect();
  const boxes = {};
  for (const [name, sel] of Object.entries(ids)) {
    // a selector, or [a row's selector, its title] (a wallet's mark is decorative: no alt to select by)
    const [css, title] = Array.isArray(sel) ? sel : [sel, null];
    const el = [...root.querySelectorAll(css)].find(
      (e) => title === null || e.querySelector('.wm-row-title')?.textContent === title) || null;
    const r = el ? el.getBoundingClientRect() : null;
    boxes[name] = r && {top: r.top, bottom: r.bottom, height: r.height};
  }
  return {scrollHeight: body.scrollHeight, clientHeight: body.clientHeight,
          card: {top: card.top, bottom: card.bottom, width: card.width, height: card.height}, boxes};
}""" % ROOT

METHODS = {
    "email": '.wm-card input[type="email"]',
    "google": '.wm-card .wm-btn[data-v="secondary"]:has(img)',
    **{p: f'.wm-card button[aria-label="Continue with {n}"]'
       for p, n in (("x", "X"), ("discord", "Discord"), ("github", "GitHub"), ("apple", "Apple"),
                    ("facebook", "Facebook"))},
    "dev wallet": ['.wm-card [data-nav]', "Dev Wallet"],
    "all wallets": ['.wm-card [data-nav]', "All Wallets"],
    "get started": '.wm-card .wm-link',
}


@pytest.fixture(scope="module")
def port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def provider(port: int) -> Iterator[DevOidcProvider]:
    running = DevOidcProvider.for_socials(f"http://{HOST}:{port}", SOCIAL_PROVIDERS).start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def smtp() -> Iterator[LocalSmtpServer]:
    server = LocalSmtpServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def demo_engine(devchains: ChainsInfo, provider: DevOidcProvider, smtp: LocalSmtpServer, port: int,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """modalcore_dev/demo.py's composition: the demo page, the embedded wallet (email, socials)."""
    folder: Path = tmp_path_factory.mktemp("connect-card")
    key = folder / "master.key"
    key.write_text(MasterKey.generate().hex())
    config = parse_config({
        "secret": SECRET,
        "projects": {"demo": {"name": "Modalcore demo dApp", "origins": []}},
        "networks": dev_networks(devchains.rpc_urls, devchains.deployment),
        "store": {"kind": "sqlite", "path": str(folder / "sessions.db")},
        "devchain_proxy": True,
        "demo_page": True,  # the demo page at / (opt-in since issue 27)
        "public_url": f"http://{HOST}:{port}",
        "embedded": {"db": str(folder / "embedded.db"), "master_key_file": str(key),
                     "public_url": f"http://{HOST}:{port}", "socials": provider.socials_section(),
                     "smtp": {"host": HOST, "port": smtp.port, "tls": "none", "sender": "Demo <w@demo.test>"}},
    })
    with serve(config, port) as running:
        yield running


@pytest.fixture
def page_at(browser: Any, demo_engine: RunningServer) -> Iterator[Any]:
    contexts: list[Any] = []

    def open_at(width: int, height: int) -> Demo:
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        demo = Demo(context, context.new_page(), demo_engine.http_url)
        watch(demo)
        demo.goto()
        demo.page.locator(".modalcore-connect-button").click()
        demo.wait_view("Connect").locator('input[type="email"]').wait_for()
        demo.wait_view("Connect").locator('button[aria-label="Continue with X"]').wait_for()
        demo.wait_view("Connect").get_by_role("button", name="All Wallets").wait_for()
        demo.page.wait_for_timeout(300)  # the opening animation
        return demo

    yield open_at
    for context in contexts:
        context.close()


def test_desktop_connect_shows_every_method_without_an_inner_scroll(page_at: Any) -> None:
    demo = page_at(1280, 800)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    demo.page.screenshot(path=str(ARTIFACTS / "connect-desktop.png"))
    measured = demo.eval(MEASURE, METHODS)
    assert measured["scrollHeight"] <= measured["clientHeight"], measured
    for name, box in measured["boxes"].items():
        assert box is not None, name
        assert box["height"] > 0 and box["bottom"] <= min(800, measured["card"]["bottom"]), (name, measured)
    assert clipped(demo) == [] and outside(demo) == []
    assert demo.errors == []


def test_phone_connect_offers_email_every_social_and_the_wallets(page_at: Any) -> None:
    demo = page_at(390, 844)
    demo.page.screenshot(path=str(ARTIFACTS / "connect-phone.png"))
    measured = demo.eval(MEASURE, METHODS)
    for name in ("email", "google", "x", "discord", "github", "apple", "facebook"):
        box = measured["boxes"][name]
        assert box is not None and box["bottom"] <= 844, (name, measured)
    assert clipped(demo) == [] and outside(demo) == []


def test_help_opens_what_is_a_wallet_and_a_mark_signs_in_with_its_provider(
        page_at: Any, provider: DevOidcProvider) -> None:
    demo = page_at(1280, 800)
    card = demo.view("Connect")
    card.get_by_role("button", name="What is a wallet?").click()
    demo.wait_view("WhatIsAWallet")
    demo.view("WhatIsAWallet").get_by_role("button", name="Back").click()
    card = demo.wait_view("Connect")
    asked: list[str] = []
    demo.context.on("request", lambda request: asked.append(request.url))
    card.get_by_role("button", name="Continue with X").click()
    # issue 27: the popup is opened by the engine-origin frame of ConnectingSocial
    demo.wait_view("ConnectingSocial")
    with demo.page.expect_popup(timeout=TIMEOUT_MS) as opened:
        demo.page.frame_locator("iframe.wm-frame").get_by_role("button", name="Continue with X").click()
    popup = opened.value
    popup.wait_for_url(provider.issuer + "/**")  # the provider's own login page (after about:blank)
    assert popup.url.startswith(provider.issuer)
    assert [u for u in asked if u.startswith(f"{provider.issuer}/auth?") and "client_id=modalcore-x" in u]
    popup.locator('input[name="login"]').fill("xena")
    popup.locator('input[name="password"]').fill("any")
    popup.locator('button[type="submit"]').click()
    popup.locator('button[type="submit"]').first.click()  # the provider's consent page
    demo.wait_host("account", lambda a: a.get("isConnected") is True and a.get("connector") == "ID_AUTH")
    assert demo.errors == []


LEGAL_PAGE = """<!doctype html><html><head><meta charset=utf-8><title>Host dApp</title>
<link rel="icon" href="data:,"></head><body><button id=open>Open</button>
<script src="%(engine)s/static/modal.js"></script>
<script>
  window.hostModal = window.ModalCore.createModal({projectId: 'demo', networks: ['eip155:31337'],
    engineUrl: '%(engine)s', debug: true, features: {legalCheckbox: true, collapseWallets: true},
    termsConditionsUrl: 'https://dapp.example/terms', privacyPolicyUrl: 'https://dapp.example/privacy'});
  document.getElementById('open').onclick = () => window.hostModal.open();
</script></body></html>"""


@pytest.fixture(scope="module")
def legal_host(demo_engine: RunningServer) -> Iterator[str]:
    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(LEGAL_PAGE % {"engine": demo_engine.http_url})

    with serve_app(Starlette(routes=[Route("/", page)])) as running:
        yield running.http_url


def test_legal_checkbox_gates_the_methods_and_collapsed_wallets_lead_to_the_list(
        browser: Any, legal_host: str) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(legal_host)
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        card = page.locator('.wm-card[data-view="Connect"]')
        card.wait_for(state="visible")
        wallets = card.get_by_role("button", name="Continue with a wallet")
        expect(wallets).to_be_disabled()
        expect(card.get_by_role("button", name="Continue with X")).to_be_disabled()
        expect(card.locator('input[type="email"]')).to_be_disabled()
        expect(card.get_by_role("link", name="terms of service")).to_have_attribute("href", "https://dapp.example/terms")
        expect(card.get_by_role("link", name="privacy policy")).to_have_attribute("href", "https://dapp.example/privacy")
        page.screenshot(path=str(ARTIFACTS / "connect-legal.png"))
        card.get_by_text("I agree to our").click()
        expect(wallets).to_be_enabled()
        expect(card.locator('input[type="email"]')).to_be_enabled()
        wallets.click()
        listed = page.locator('.wm-card[data-view="ConnectWallets"]')
        listed.wait_for(state="visible")
        expect(listed.get_by_role("button", name="All Wallets")).to_be_visible()
    finally:
        context.close()
