"""behaviour.md "Latency" in Chromium through the delay proxy at 100 ms round trip.

Each check clicks in the page (a synthetic click from page JS) and reads what the modal draws in
the first animation frame after it, together with the number of websocket frames the page had
received since the click: the local guess must be on screen while that number is still 0, i.e.
before anything from the engine could have contributed. No wall-clock thresholds.
"""

from __future__ import annotations

from typing import Any

import pytest

from modalcore_dev.latency.browser import (
    BACK_BUTTON,
    CLOSE_BUTTON,
    CONNECT_BUTTON,
    BrowserThread,
    DemoPage,
    wallet_button,
)
from modalcore_dev.latency.proxy import ThreadedProxy

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

CONNECT = {"overlay": "open", "card": "Connect", "views": ["Connect"]}
ACCOUNT = {"overlay": "open", "card": "Account", "views": ["Account"]}


def local(result: dict[str, Any]) -> dict[str, Any]:
    """The first frame after the click, asserted to owe nothing to the engine."""
    first: dict[str, Any] = result["first"]
    assert first["frames"] == 0, f"an engine frame arrived before the first frame: {result}"
    state: dict[str, Any] = first["state"]
    return state


async def connect_dev_wallet(demo: DemoPage) -> None:
    await demo.measure(CONNECT_BUTTON, CONNECT)
    await demo.quiet()
    await demo.measure(wallet_button(), {"overlay": "open", "card": "Account"}, timeout=10_000)
    await demo.quiet()
    await demo.eval("window.demoModal.close()")
    await demo.wait_state({"overlay": "closed"})
    await demo.quiet()


def test_the_closed_modal_holds_the_view_open_will_show(browser: BrowserThread, demo: DemoPage) -> None:
    async def run() -> None:
        state = await demo.state()
        assert state["overlay"] == "closed" and not state["visible"]
        assert state["card"] == "Connect"  # prepared while closed
        await demo.quiet()
        result = await demo.measure(CONNECT_BUTTON, CONNECT)
        first = local(result)
        assert first["overlay"] == "open" and first["visible"]
        assert first["card"] == "Connect" and first["views"] == ["Connect"]
        assert first["title"] == "Connect Wallet"
        await demo.quiet()
        assert await demo.state() == {**first, "busy": []}, "the engine confirms: nothing changes"
        assert demo.errors == []

    browser.run(run())


def test_opening_while_connected_shows_account_at_once(browser: BrowserThread, demo: DemoPage) -> None:
    async def run() -> None:
        await connect_dev_wallet(demo)
        assert (await demo.state())["card"] == "Account", "kept current: connected → Account"
        result = await demo.measure(CONNECT_BUTTON, ACCOUNT)
        first = local(result)
        assert first["card"] == "Account" and first["views"] == ["Account"] and first["visible"]
        await demo.quiet()
        assert (await demo.state())["card"] == "Account"
        # open() from the host API too
        await demo.eval("window.demoModal.close()")
        await demo.wait_state({"overlay": "closed"})
        await demo.quiet()
        seen = await demo.eval("""async () => {
          const frames = window.__lat.frames;
          window.demoModal.open();
          await new Promise((resolve) => requestAnimationFrame(resolve));
          return { state: window.__lat.state(), frames: window.__lat.frames - frames };
        }""")
        assert seen["frames"] == 0
        assert seen["state"]["overlay"] == "open" and seen["state"]["card"] == "Account"
        assert demo.errors == []

    browser.run(run())


def test_a_pressed_wallet_is_marked_busy_before_the_engine_answers(browser: BrowserThread, demo: DemoPage) -> None:
    async def run() -> None:
        await demo.measure(CONNECT_BUTTON, CONNECT)
        await demo.quiet()
        await demo.eval("window.devWallet.setPromptDelay(400)")
        result = await demo.measure(wallet_button(), {"busy": "Dev Wallet"})
        first = local(result)
        assert any("Dev Wallet" in label for label in first["busy"]), first
        assert first["card"] == "Connect"
        # then the engine: ConnectingExternal, and the wallet approves after its delay
        await demo.wait_state({"card": "ConnectingExternal"})
        await demo.wait_state({"card": "Account"})
        assert demo.errors == []

    browser.run(run())


def test_back_shows_the_previous_view_at_once(browser: BrowserThread, demo: DemoPage) -> None:
    async def run() -> None:
        await demo.measure(CONNECT_BUTTON, CONNECT)
        await demo.quiet()
        await demo.eval("window.devWallet.setRejectNext(true)")
        await demo.measure(wallet_button(), {"card": "ConnectingExternal", "views": ["ConnectingExternal"]})
        await demo.quiet()
        assert (await demo.state())["title"] == "Dev Wallet"
        result = await demo.measure(BACK_BUTTON, {"views": ["Connect"]})
        first = local(result)
        assert first["views"] == ["Connect"], first
        assert first["title"] == "Connect Wallet", "the header shows the previous view's title"
        # the engine's answer agrees: Connect stays, and is the card's view now
        await demo.quiet()
        state = await demo.state()
        assert state["views"] == ["Connect"] and state["card"] == "Connect" and state["title"] == "Connect Wallet"
        # and forward again through the list works from the shown view
        await demo.measure(["modal", "button.wm-wallet", "All Wallets"], {"card": "AllWallets"})
        await demo.quiet()
        result = await demo.measure(BACK_BUTTON, {"views": ["Connect"]})
        assert local(result)["views"] == ["Connect"]
        assert demo.errors == []

    browser.run(run())


def test_the_engine_wins_when_the_guess_was_wrong(browser: BrowserThread, demo: DemoPage) -> None:
    """The wallet disconnects while the modal is closed and the visitor opens at once: the page
    still holds Account (the engine's update is on its way), the engine says Connect; Connect stays."""

    async def run() -> None:
        await connect_dev_wallet(demo)
        assert (await demo.state())["card"] == "Account"
        await demo.eval("window.devWallet.disconnect()")
        result = await demo.measure(CONNECT_BUTTON, CONNECT, timeout=5000)
        first = local(result)
        assert first["card"] == "Account", "the local guess: the tree the page held"
        assert result["ok"] and result["frames"] > 0, "the engine's frames corrected it"
        await demo.quiet(400)
        film = await demo.film(300)
        assert all(frame["card"] == "Connect" and frame["views"] == ["Connect"] for frame in film), film
        account = await demo.eval("JSON.parse(document.querySelector('#account').textContent || '{}')")
        assert account.get("isConnected") is False
        assert demo.errors == []

    browser.run(run())


def test_closing_keeps_the_card_as_it_was_while_it_fades(browser: BrowserThread, demo: DemoPage) -> None:
    """Closed, the engine prepares the opening view again; the fading card must not switch to it."""

    async def run() -> None:
        await demo.measure(CONNECT_BUTTON, CONNECT)
        await demo.quiet()
        await demo.measure(["modal", "button.wm-wallet", "All Wallets"], {"card": "AllWallets"})
        await demo.quiet()
        film = await demo.eval("(c) => { window.__lat.find(c).click(); return window.__lat.film(250); }", CLOSE_BUTTON)
        closing = [frame for frame in film if frame["overlay"] == "closing"]
        assert closing, film
        assert all(frame["card"] == "AllWallets" for frame in closing), film
        await demo.quiet()
        state = await demo.state()
        assert state["overlay"] == "closed" and state["card"] == "Connect", "prepared for the next opening"
        assert demo.errors == []

    browser.run(run())


def test_no_delay_gives_the_same_local_frames(browser: BrowserThread, demo: DemoPage, proxy: ThreadedProxy) -> None:
    async def run() -> None:
        proxy.delay_ms = 0
        await demo.quiet()
        result = await demo.measure(CONNECT_BUTTON, CONNECT)
        assert result["first"]["state"]["card"] == "Connect"
        await demo.quiet()
        assert demo.errors == []

    browser.run(run())
