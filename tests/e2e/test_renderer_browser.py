"""Issue 3: the thin renderer, host API and demo page in Debian's Chromium."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_testing import Client, RunningServer

from .conftest import ARTIFACTS, TIMEOUT_MS, Demo, connect_dev_wallet, engine_config, free_port, serve

pytestmark = pytest.mark.e2e

DEEP_ACTIVE_INSIDE_CARD = """() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  const card = document.querySelector('modalcore-modal').shadowRoot.querySelector('.wm-card');
  return {inside: card.contains(a), what: a ? (a.getAttribute('aria-label') || a.textContent || a.tagName) : null};
}"""

# Computed colours as [r, g, b] (color-mix() computes to `color(srgb ...)`: a canvas pixel
# normalises any CSS colour).
CARD_COLOURS = """() => {
  const card = document.querySelector('modalcore-modal').shadowRoot.querySelector('.wm-card');
  const style = getComputedStyle(card);
  const ctx = document.createElement('canvas').getContext('2d', {willReadFrequently: true});
  const rgb = (css) => { ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = css; ctx.fillRect(0, 0, 1, 1);
    return Array.from(ctx.getImageData(0, 0, 1, 1).data.slice(0, 3)); };
  return {background: rgb(style.backgroundColor), color: rgb(style.color)};
}"""


def overlay(demo: Demo) -> Any:
    return demo.page.locator(".wm-overlay")


def expect_closed(demo: Demo) -> None:
    from playwright.sync_api import expect

    expect(overlay(demo)).to_have_attribute("data-state", "closed")
    expect(demo.dialog).to_be_hidden()
    demo.wait_host("state", lambda s: s.get("open") is False)


def test_demo_page_loads_without_console_errors(demo: Demo) -> None:
    from playwright.sync_api import expect

    expect(demo.page).to_have_title("Modalcore demo dApp")
    expect(demo.page.get_by_role("button", name="Connect Wallet")).to_be_visible()
    # the engine answered: the host state arrived over the websocket
    state = demo.wait_host("state", lambda s: s.get("initialized") is True)
    assert state["open"] is False and state["view"] == "Connect"
    assert demo.eval("window.devWallet.label") == "Dev Wallet — test asset"
    demo.page.wait_for_load_state("networkidle")
    assert demo.errors == []


def test_connect_view_opens_from_the_connect_button(demo: Demo) -> None:
    from playwright.sync_api import expect

    demo.page.get_by_role("button", name="Connect Wallet").click()
    card = demo.wait_view("Connect")
    expect(card).to_have_attribute("aria-modal", "true")
    expect(card.get_by_role("heading", name="Connect Wallet")).to_be_visible()
    expect(card.get_by_role("button", name="Dev Wallet")).to_be_visible()
    demo.wait_host("state", lambda s: s.get("open") is True and s.get("view") == "Connect")


def test_connect_view_opens_from_the_open_api(demo: Demo) -> None:
    from playwright.sync_api import expect

    demo.call("window.demoModal.open()")
    card = demo.wait_view("Connect")
    expect(card.get_by_role("button", name="Dev Wallet")).to_be_visible()
    assert demo.eval("window.demoModal.getState().open") is True
    demo.wait_host("state", lambda s: s.get("open") is True)


def test_escape_closes_the_modal(demo: Demo) -> None:
    from playwright.sync_api import expect

    button = demo.page.get_by_role("button", name="Connect Wallet")
    button.click()
    demo.wait_view("Connect")
    demo.page.keyboard.press("Escape")
    expect_closed(demo)
    expect(button).to_be_focused()  # focus goes back where it was before opening


def test_reopening_after_close_works(demo: Demo) -> None:
    from playwright.sync_api import expect

    button = demo.page.get_by_role("button", name="Connect Wallet")
    button.click()
    demo.wait_view("Connect")
    demo.page.keyboard.press("Escape")
    expect_closed(demo)
    button.click()
    card = demo.wait_view("Connect")
    expect(card.get_by_role("button", name="Dev Wallet")).to_be_visible()
    demo.dialog.get_by_role("button", name="Close").click()
    expect_closed(demo)
    demo.call("window.demoModal.open()")
    demo.wait_view("Connect")
    demo.wait_host("state", lambda s: s.get("open") is True)


def test_light_dark_switch_changes_the_card_colours(demo: Demo) -> None:
    from playwright.sync_api import expect

    demo.call("window.demoModal.open()")
    demo.wait_view("Connect")
    root = demo.page.locator(".wm-root")
    expect(root).to_have_attribute("data-theme", "dark")  # behaviour.md §3: dark by default
    dark = demo.eval(CARD_COLOURS)
    demo.call("window.demoModal.setThemeMode('light')")
    expect(root).to_have_attribute("data-theme", "light")
    light = demo.eval(CARD_COLOURS)
    assert light["background"] != dark["background"]
    assert light["color"] != dark["color"]
    assert light["background"] == [255, 255, 255] and sum(light["color"]) < 3 * 64
    assert dark["background"] == [25, 26, 26] and sum(dark["color"]) > 3 * 192
    demo.call("window.demoModal.setThemeMode('dark')")
    expect(root).to_have_attribute("data-theme", "dark")
    assert demo.eval(CARD_COLOURS) == dark


def test_dropped_websocket_reconnects_to_the_same_view(
    browser: Any, devchains: ChainsInfo, tmp_path: Path
) -> None:
    """The engine restarts mid-session (same port, same secret, same SQLite store): the page
    reconnects on its own, resumes its session, and the modal still shows the view it showed."""
    from playwright.sync_api import expect

    config = engine_config(devchains, tmp_path)
    port = free_port()
    context = browser.new_context()
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        demo = Demo(context, page, f"http://127.0.0.1:{port}")
        with serve(config, port) as first:
            demo.goto()
            demo.call("window.demoModal.open()")
            demo.wait_view("Connect").get_by_role("button", name="Get started").click()
            card = demo.wait_view("WhatIsAWallet")
            session = demo.eval("localStorage.getItem('modalcore:demo:resume')").split(".")[0]
            first.wait_for(lambda: len(first.hub) == 1)
        # the engine is gone: the page keeps what it shows and retries with backoff
        with serve(config, port) as second:
            second.wait_for(lambda: session in second.hub.runners, timeout=15)
            expect(card).to_be_visible()
            assert demo.eval("localStorage.getItem('modalcore:demo:resume')").split(".")[0] == session
            # the restored session is live: going back is answered by the new engine
            demo.dialog.get_by_role("button", name="Back").click()
            demo.wait_view("Connect")
            demo.wait_host("state", lambda s: s.get("view") == "Connect" and s.get("open") is True)
    finally:
        context.close()


def test_destroy_ends_the_session_in_the_engine(demo: Demo, engine: RunningServer) -> None:
    """The host's destroy() sends `leave`: the engine ends the session and deletes its saved
    state, so the resume token (also forgotten by the page) resumes nothing any more."""
    demo.call("window.demoModal.open()")
    demo.wait_view("Connect")
    token = demo.eval("localStorage.getItem('modalcore:demo:resume')")
    session = token.split(".")[0]
    engine.wait_for(lambda: session in engine.hub.runners)
    demo.eval("window.demoModal.destroy()")
    engine.wait_for(lambda: session not in engine.hub.runners)
    assert demo.eval("localStorage.getItem('modalcore:demo:resume')") is None

    async def rejoin() -> list[dict[str, Any]]:  # the same origin, with the old token
        async with Client.open(engine.ws_url("demo"), origin=demo.base_url, project="demo") as c:
            return await c.join(resume=token)

    with ThreadPoolExecutor(1) as other_thread:  # sync Playwright runs a loop in this one
        frames = other_thread.submit(asyncio.run, rejoin()).result(timeout=10)
    assert frames[0]["t"] == "joined"
    assert frames[0]["resumed"] is False and frames[0]["session"] != session


def test_keyboard_focus_stays_inside_the_open_modal(demo: Demo) -> None:
    demo.page.get_by_role("button", name="Connect Wallet").click()
    demo.wait_view("Connect")
    demo.page.get_by_role("button", name="Dev Wallet").wait_for()
    assert demo.poll(lambda: demo.eval(DEEP_ACTIVE_INSIDE_CARD)["inside"]), "focus moved into the modal"
    seen: list[str] = []
    for _ in range(12):
        demo.page.keyboard.press("Tab")
        where = demo.eval(DEEP_ACTIVE_INSIDE_CARD)
        assert where["inside"], f"Tab left the modal: focus on {where['what']!r}"
        seen.append(where["what"])
    # Tab cycles: it came back to where it started, through more than one control
    distinct = set(seen)
    assert len(distinct) >= 3, seen
    assert seen.count(seen[0]) >= 2, seen
    for _ in range(6):
        demo.page.keyboard.press("Shift+Tab")
        where = demo.eval(DEEP_ACTIVE_INSIDE_CARD)
        assert where["inside"], f"Shift+Tab left the modal: focus on {where['what']!r}"


def test_screenshots_of_the_connect_and_account_views(demo: Demo) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def shoot(name: str) -> None:
        demo.page.wait_for_timeout(250)  # let the 150 ms open animation finish
        path = ARTIFACTS / f"{name}.png"
        demo.page.screenshot(path=str(path))
        written.append(path)

    demo.page.get_by_role("button", name="Connect Wallet").click()
    demo.wait_view("Connect")
    shoot("connect-dark")
    demo.call("window.demoModal.setThemeMode('light')")
    demo.page.locator('.wm-root[data-theme="light"]').wait_for(state="attached")
    shoot("connect-light")
    card = connect_dev_wallet(demo)
    card.get_by_text(" ETH").first.wait_for()
    shoot("account-light")
    demo.call("window.demoModal.setThemeMode('dark')")
    demo.page.locator('.wm-root[data-theme="dark"]').wait_for(state="attached")
    shoot("account-dark")
    for path in written:
        assert path.stat().st_size > 10_000, path
