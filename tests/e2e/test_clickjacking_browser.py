"""Issue 38 §2 in Chromium: a host page that hides the approval frame cannot get a click on it to
count. The visitor signed in normally; the host asks `eth_sendTransaction` (1 ETH), then hides
the engine-origin frame one way or another (opacity, an overlay that lets clicks through, a
transform, a filter, a tiny frame, a frame pushed partly off screen) and draws a decoy; the
visitor's click lands on the real Approve (the frame's own listener sees it), and nothing is
sent. Shown again, the frame approves after it has been visible for a moment.

Page and engine are two origins of one site (127.0.0.1, two ports), as in the issue.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo, isolated
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.server.approval_guard import MIN_SHOWN_MS
from modalcore_testing import RunningServer

from .conftest import TIMEOUT_MS
from .test_embedded_browser import embedded_dir, embedded_engine, host_page, host_site, sign_in_by_email, smtp  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

RECEIVER = "0x000000000000000000000000000000000000dEaD"
ONE_ETH = 10**18

ASK = """(a) => { window.outcome = undefined;
  window.hostModal.getProvider().request({method: 'eth_sendTransaction',
    params: [{from: a, to: '%s', value: '0xde0b6b3a7640000'}]})
  .then((r) => { window.outcome = 'sent ' + r; }, (e) => { window.outcome = 'refused ' + e.code; }); }""" % RECEIVER

# each way a host hides the frame; `b` is Approve's box on the page before hiding. Every decoy
# lets clicks through (pointer-events: none), as in the reported attack.
HIDE = {
    "opacity": "card.style.opacity = '0.001'",
    "overlay": """const d = document.createElement('div'); d.className = 'decoy';
        Object.assign(d.style, {position: 'fixed', inset: '0', background: '#fff', zIndex: 2147483647,
                                pointerEvents: 'none'});
        document.body.appendChild(d)""",
    "transform": "card.style.transform = 'scale(0.6) rotate(2deg)'",
    "filter": "card.style.filter = 'blur(12px)'",
    "tiny": "frame.style.width = '120px'; frame.style.height = '60px'",
    # the card's top (what is approved) above the page, Approve just inside it
    "offscreen": "Object.assign(card.style, {position: 'fixed', left: '40px', top: (12 - inside) + 'px'})",
}
DECOY = """(b) => { const d = document.createElement('button'); d.className = 'decoy'; d.textContent = 'Claim your prize';
    Object.assign(d.style, {position: 'fixed', left: b.x + 'px', top: b.y + 'px', width: b.width + 'px',
                            height: b.height + 'px', zIndex: 2147483647, pointerEvents: 'none'});
    document.body.appendChild(d); }"""
# `inside`: how far below the card's top Approve is
APPLY = """(inside) => { const root = document.querySelector('modalcore-modal').shadowRoot;
    const card = root.querySelector('.wm-card'), frame = root.querySelector('iframe.wm-frame');
    window.restore = [card.getAttribute('style'), frame.getAttribute('style')];
    %s }"""
RESTORE = """() => { const root = document.querySelector('modalcore-modal').shadowRoot;
    const card = root.querySelector('.wm-card'), frame = root.querySelector('iframe.wm-frame');
    const [c, f] = window.restore;
    if (c === null) card.removeAttribute('style'); else card.setAttribute('style', c);
    if (f === null) frame.removeAttribute('style'); else frame.setAttribute('style', f);
    for (const d of document.querySelectorAll('.decoy')) d.remove(); }"""
# inside the frame (Playwright reaches it; a host page cannot): what the visitor's press hit
WATCH = """() => { window.pressed = [];
    addEventListener('pointerdown', (e) => window.pressed.push(e.target.id || e.target.tagName), true); }"""


@pytest.fixture(scope="module")
def visitor(browser: Any, host_site: str, smtp: LocalSmtpServer,  # noqa: F811 (fixtures)
            devchains: ChainsInfo) -> Iterator[tuple[Any, str]]:
    """A visitor signed in by email, its embedded address funded with 10 ETH (on chains reverted
    once the module is done)."""
    with isolated(devchains) as devchain, host_page(browser, host_site) as page:
        sign_in_by_email(page, smtp, "clicky@example.com")
        found = re.search(r'"address":"(0x[0-9a-fA-F]{40})"', page.locator("#account").inner_text())
        assert found is not None
        with devchain.rpc(31337) as rpc:
            rpc.call("hardhat_setBalance", [found.group(1), hex(10 * ONE_ETH)])
        yield page, found.group(1)


def _nonce(devchain: ChainsInfo, address: str) -> int:
    with devchain.rpc(31337) as rpc:
        return int(rpc.call("eth_getTransactionCount", [address, "latest"]), 16)


def _approval(page: Any, address: str) -> tuple[Any, Any]:
    """The host asks to send 1 ETH; the approval frame is up with Approve on (shown long enough)."""
    from playwright.sync_api import expect

    page.evaluate(ASK, address)
    page.locator('.wm-card[data-view="ApproveTransaction"]').wait_for(state="visible")
    frame = page.frame_locator("iframe.wm-frame")
    frame.get_by_role("button", name="Approve").wait_for(state="visible")
    inner = next(f for f in page.frames if "/embedded/approve" in f.url)
    expect(frame.get_by_role("button", name="Approve")).to_be_enabled()
    inner.evaluate(WATCH)
    return frame, inner


@pytest.mark.parametrize("how", list(HIDE))
def test_a_click_on_a_hidden_approval_frame_sends_nothing(
        visitor: tuple[Any, str], devchains: ChainsInfo, embedded_engine: RunningServer, how: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    page, address = visitor
    before = _nonce(devchains, address)
    frame, inner = _approval(page, address)
    approve = frame.get_by_role("button", name="Approve")
    box, outer = approve.bounding_box(), page.locator('.wm-card[data-view="ApproveTransaction"]').bounding_box()
    assert box is not None and outer is not None
    page.evaluate(APPLY % HIDE[how], box["y"] - outer["y"])
    page.evaluate(DECOY, box)
    # hidden for longer than the frame's minimum shown time: what matters is that it is hidden
    page.wait_for_timeout(MIN_SHOWN_MS + 400)
    if how in ("opacity", "overlay", "filter"):  # nothing moved: the visitor clicks the decoy
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    else:  # the frame moved or shrank: the click lands where Approve now is
        approve.click(force=True)
    page.wait_for_timeout(600)
    assert _nonce(devchains, address) == before
    assert page.evaluate("window.outcome") is None  # still waiting: not sent, not failed
    assert "approve" in inner.evaluate("window.pressed"), "the visitor's press did not reach Approve"
    expect(frame.locator("#shown")).to_have_text("Approve is off while this window is hidden")
    # shown again, the visitor ends it (Reject needs no visibility: it only ends the request)
    page.evaluate(RESTORE)
    expect(approve).to_be_enabled()
    # Chromium itself drops a click on a cross-origin frame that moved or changed in the last
    # 500 ms (its own guard, for moves only): give it that long
    page.wait_for_timeout(500)
    frame.get_by_role("button", name="Reject").click()
    page.wait_for_function("window.outcome !== undefined")
    assert page.evaluate("window.outcome") == "refused 4001"
    assert _nonce(devchains, address) == before


def test_the_visible_frame_approves_after_a_moment_and_says_why_until_then(
        visitor: tuple[Any, str], devchains: ChainsInfo, embedded_engine: RunningServer) -> None:  # noqa: F811
    from playwright.sync_api import expect

    page, address = visitor
    before = _nonce(devchains, address)
    frame, inner = _approval(page, address)
    # covered, then shown again: Approve waits for the frame to be shown again for a moment
    page.evaluate(APPLY % HIDE["opacity"], 0)
    expect(frame.get_by_role("button", name="Approve")).to_be_disabled()
    page.evaluate(RESTORE)
    expect(frame.get_by_role("button", name="Approve")).to_be_enabled()
    page.wait_for_timeout(500)  # Chromium's own drop of clicks on a frame just changed (above)
    frame.get_by_role("button", name="Approve").click()
    page.wait_for_function("window.outcome !== undefined", timeout=20_000)
    assert str(page.evaluate("window.outcome")).startswith("sent 0x")
    assert _nonce(devchains, address) == before + 1


def test_without_intersection_observer_v2_the_visitor_approves_in_a_popup_the_host_cannot_cover(
        browser: Any, host_site: str, smtp: LocalSmtpServer, devchains: ChainsInfo,  # noqa: F811
        embedded_engine: RunningServer) -> None:  # noqa: F811
    """A browser without `IntersectionObserverEntry.isVisible` (Firefox, Safari): a press on the
    frame's Approve, even hidden, only opens a window of the engine's origin showing the request;
    its Approve (on after a moment) is what sends."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script("if (typeof IntersectionObserverEntry !== 'undefined') "
                            "delete IntersectionObserverEntry.prototype.isVisible;")
    try:
        page = context.new_page()
        page.goto(host_site)
        page.wait_for_function("window.hostModal !== undefined")
        sign_in_by_email(page, smtp, "popsy@example.com")
        found = re.search(r'"address":"(0x[0-9a-fA-F]{40})"', page.locator("#account").inner_text())
        assert found is not None
        address = found.group(1)
        with isolated(devchains) as chains:
            with chains.rpc(31337) as rpc:
                rpc.call("hardhat_setBalance", [address, hex(10 * ONE_ETH)])
            page.evaluate(ASK, address)
            frame = page.frame_locator("iframe.wm-frame")
            approve = frame.get_by_role("button", name="Approve")
            expect(approve).to_be_enabled()
            page.evaluate(APPLY % HIDE["opacity"], 0)
            page.wait_for_timeout(300)
            with context.expect_page() as opened:
                approve.click(force=True)
            popup = opened.value
            popup.wait_for_load_state()
            assert popup.url.startswith(embedded_engine.http_url + "/embedded/approve?")
            expect(popup.get_by_text("1 ETH", exact=False).first).to_be_visible()
            page.wait_for_timeout(300)
            assert _nonce(chains, address) == 0 and page.evaluate("window.outcome") is None
            popup.get_by_role("button", name="Approve").click()
            page.wait_for_function("window.outcome !== undefined", timeout=20_000)
            assert str(page.evaluate("window.outcome")).startswith("sent 0x")
            assert _nonce(chains, address) == 1
    finally:
        context.close()
