"""Issue 40 item 8 in Chromium: a host page with only the script tag's loader (`loader.js`) and
`<modalcore-button>`, served from its own origin as a host's page is. The button is drawn at once,
before the modal's code arrives, and looks the same before and after it (same box, same style,
nothing below it moves); the modal's code is fetched on idle from its content-hashed immutable
URL; a click made before that code arrived is shown pressed (`aria-busy`) at once and opens the
modal as soon as the code is there. Under a host CSP that allows scripts only by nonce, the
loader's nonce carries the modal's script."""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from modalcore_dev.latency.browser import demo_config
from modalcore_testing import RunningServer, serve_app, start_server

from .conftest import new_page

pytestmark = pytest.mark.e2e

NONCE = "bG9hZGVyLXRlc3Q"
PAGE = """<!doctype html><html><head><meta charset=utf-8><title>Host dApp</title><link rel="icon" href="data:,"></head>
<body style="font:16px system-ui;padding:24px">
<header><modalcore-button project-id="demo" networks="eip155:31337"></modalcore-button></header>
<p id="below">Page content below the button</p>
<script src="%(engine)s/static/loader.js"%(nonce)s></script></body></html>"""
# docs/hosts/embedding.md's snippet on the loader: createModal, a subscription, the page's own button
SNIPPET = """<!doctype html><html><head><meta charset=utf-8><title>Host dApp</title><link rel="icon" href="data:,"></head>
<body><button id="connect">Connect</button>
<script src="%(engine)s/static/loader.js"></script>
<script>
  window.accounts = [];
  const modal = ModalCore.createModal({ projectId: 'demo', networks: ['eip155:31337'],
    metadata: { name: 'My dApp', url: location.origin, icons: [] } });
  modal.subscribeAccount((account) => window.accounts.push(account.status));
  document.querySelector('#connect').onclick = () => modal.open();
  window.provider = modal.getProvider();
</script></body></html>"""
HASHED = re.compile(r"/static/modal\.[0-9a-f]{12}\.js$")
# what must not change when the modal's code arrives: the button's box, its look, the text below
LOOK = """() => {
  const b = document.querySelector('modalcore-button').shadowRoot.querySelector('button');
  const s = getComputedStyle(b);
  const r = b.getBoundingClientRect();
  const below = document.getElementById('below').getBoundingClientRect();
  return { box: [r.x, r.y, r.width, r.height], below: [below.x, below.y], text: b.textContent,
    style: ['font', 'padding', 'border', 'borderRadius', 'backgroundColor', 'color', 'opacity', 'cursor'].map((k) => s[k]) };
}"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """The demo composition without chains: opening the modal needs none."""
    folder = tmp_path_factory.mktemp("loader-engine")
    with start_server(demo_config({31337: "http://127.0.0.1:8545"}, None, folder)) as server:
        yield server


@pytest.fixture(scope="module")
def host(engine: RunningServer) -> Iterator[str]:
    async def plain(request: Request) -> HTMLResponse:
        return HTMLResponse(PAGE % {"engine": engine.http_url, "nonce": ""})

    async def strict(request: Request) -> HTMLResponse:
        # scripts only by nonce: the engine's origin is not listed, so the modal's script runs
        # only if the loader passes its nonce on
        return HTMLResponse(PAGE % {"engine": engine.http_url, "nonce": f' nonce="{NONCE}"'},
                            headers={"Content-Security-Policy": f"script-src 'nonce-{NONCE}'"})

    async def snippet(request: Request) -> HTMLResponse:
        return HTMLResponse(SNIPPET % {"engine": engine.http_url})

    with serve_app(Starlette(routes=[Route("/", plain), Route("/csp", strict), Route("/snippet", snippet)])) as site:
        yield site.http_url


def test_rule_the_button_is_drawn_before_the_modal_arrives_a_click_then_is_kept_and_nothing_moves(
        browser: Any, host: str, renderer_dist: Path) -> None:
    from playwright.sync_api import expect

    digest = hashlib.sha256((renderer_dist / "modal.js").read_bytes()).hexdigest()[:12]
    context, page, errors = new_page(browser)
    held: list[Any] = []
    context.route(HASHED, lambda route: held.append(route))  # the modal's code waits for the test
    try:
        page.goto(host + "/")
        button = page.locator("modalcore-button button")
        expect(button).to_have_text("Connect Wallet")
        before = page.evaluate(LOOK)
        deadline = time.monotonic() + 10
        while not held and time.monotonic() < deadline:  # fetched on idle, without any interaction
            page.wait_for_timeout(50)
        assert held, "the modal's code was not fetched on idle"
        assert held[0].request.url.endswith(f"/static/modal.{digest}.js"), held[0].request.url
        assert page.locator("modalcore-modal").count() == 0

        button.click()
        expect(button).to_have_attribute("aria-busy", "true")  # pressed at once, the modal not there
        assert page.locator("modalcore-modal").count() == 0
        held[0].continue_()
        expect(page.get_by_role("dialog")).to_be_visible()  # the click was kept
        expect(button).not_to_have_attribute("aria-busy", "true")
        page.keyboard.press("Escape")
        expect(page.get_by_role("dialog")).to_be_hidden()
        after = page.evaluate(LOOK)
        assert after == before
        assert not errors, errors
    finally:
        context.close()


def test_rule_under_a_nonce_only_csp_the_loader_passes_its_nonce_to_the_modal_script(browser: Any, host: str) -> None:
    from playwright.sync_api import expect

    context, page, errors = new_page(browser)
    try:
        page.goto(host + "/csp")
        button = page.locator("modalcore-button button")
        button.hover()  # fetches the modal's code now, if idle has not yet
        button.click()
        expect(page.get_by_role("dialog")).to_be_visible()
        assert not [e for e in errors if "Content Security Policy" in e], errors
    finally:
        context.close()


def test_rule_a_loader_whose_hashed_modal_is_gone_falls_back_to_the_current_one(browser: Any, host: str) -> None:
    """An engine release while a page kept the previous loader (cached five minutes): its hashed
    modal.js answers 404, and the loader takes the stable /static/modal.js instead of failing."""
    from playwright.sync_api import expect

    context, page, errors = new_page(browser)
    context.route(HASHED, lambda route: route.fulfill(status=404, body="Not Found"))
    stable: list[str] = []
    page.on("request", lambda request: stable.append(request.url) if request.url.endswith("/static/modal.js") else None)
    try:
        page.goto(host + "/")
        page.locator("modalcore-button button").click()
        expect(page.get_by_role("dialog")).to_be_visible()
        assert len(stable) == 1
        assert not [e for e in errors if "pageerror" in e], errors
    finally:
        context.close()


def test_rule_the_embedding_snippet_works_on_the_loader(browser: Any, host: str) -> None:
    """docs/hosts/embedding.md's `<script>` snippet, now on loader.js: the modal answers at once,
    its subscription hears the engine once the modal's code is there, the page's own button opens
    it, and the provider answers."""
    from playwright.sync_api import expect

    context, page, errors = new_page(browser)
    try:
        page.goto(host + "/snippet")
        page.wait_for_function("window.accounts.length > 0")  # fetched on idle, then joined
        page.locator("#connect").click()
        expect(page.get_by_role("dialog")).to_be_visible()
        assert page.evaluate("window.provider.request({ method: 'eth_accounts' }).then(() => 'answered', (e) => e.code)") == 4900
        assert page.evaluate("typeof window.ModalCore.React.createElement") == "function"  # ModalCore.load()'s API
        assert not errors, errors
    finally:
        context.close()
