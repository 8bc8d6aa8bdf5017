"""Issue 38 item 6 (a) in Chromium, at desktop and phone size (390×844): email account → Send
0.002 ETH → the approval frame → the page reloads → the frame shows again → Approve.

The report: the transaction landed, but the modal said "Wallet request lost … Try again", Try
again opened a second approval for the same send, and the balances stayed stale. The rule: a
reload while the approval waits loses nothing (the engine, not the page, holds the embedded
wallet's request): Approve ends the send as sent, once, the balance the host sees is fetched
again, and no second approval is ever shown.

The host page and the engine are two origins of one site (127.0.0.1 on two ports), as in
test_embedded_browser.py, whose engine and host page this module shares.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import RunningServer

from .conftest import TIMEOUT_MS
from .test_embedded_browser import (embedded_dir, embedded_engine, host_site, sign_in_by_email,  # noqa: F401 (fixtures)
                                    smtp)

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

RECEIVER = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@contextlib.contextmanager
def sized_page(browser: Any, url: str, size: str) -> Iterator[Any]:
    phone = size == "phone"
    context = browser.new_context(viewport=SIZES[size], is_mobile=phone, has_touch=phone)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_function("window.hostModal !== undefined")
    try:
        yield page
    finally:
        context.close()
    assert errors == [], errors


def _nonce(chains: ChainsInfo, address: str) -> int:
    with chains.rpc(31337) as rpc:
        return int(rpc.call("eth_getTransactionCount", [address, "pending"]), 16)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_rule_a_reload_during_the_approval_then_approve_sends_once_and_shows_it_sent(
        browser: Any, host_site: str, smtp: LocalSmtpServer,  # noqa: F811 (fixtures)
        embedded_engine: RunningServer, devchain: ChainsInfo, size: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    with devchain.rpc(31337) as rpc:
        before = int(rpc.call("eth_getBalance", [RECEIVER, "latest"]), 16)
    with sized_page(browser, host_site, size) as page:
        sign_in_by_email(page, smtp, f"once-{size}@example.com")
        found = re.search(r'"address":"(0x[0-9a-fA-F]{40})"', page.locator("#account").inner_text())
        assert found is not None
        address = found.group(1)
        with devchain.rpc(31337) as rpc:
            rpc.call("hardhat_setBalance", [address, hex(10**18)])
        page.reload()
        page.wait_for_function("window.hostModal !== undefined")
        page.wait_for_function("document.getElementById('account').textContent.includes('1.000 ETH')")
        page.click("#open")
        page.locator('.wm-card[data-view="Account"]').get_by_role("button", name="Send", exact=True).click()
        form = page.locator('.wm-card[data-view="WalletSend"]')
        form.wait_for(state="visible")
        form.get_by_role("button", name="ETH").first.wait_for()  # Send opens on the native token
        form.get_by_role("textbox", name="Amount").fill("0.002")
        form.get_by_role("textbox", name="Receiver address").fill(RECEIVER)
        form.get_by_role("button", name="Preview send").click()
        page.locator('.wm-card[data-view="WalletSendPreview"]').get_by_role("button", name="Send", exact=True).click()
        page.frame_locator("iframe.wm-frame").get_by_role("button", name="Approve").wait_for(state="visible")

        page.reload()  # the visitor reloads while the approval waits
        page.wait_for_function("window.hostModal !== undefined")
        card = page.locator('.wm-card[data-view="ApproveTransaction"]')
        card.wait_for(state="visible")  # the frame shows again
        frame = page.frame_locator("iframe.wm-frame")
        expect(frame.locator("dd", has_text="0.002 ETH")).to_be_visible()  # the row (the outcome says it too)
        approve = frame.get_by_role("button", name="Approve")
        expect(approve).to_be_enabled()
        assert _nonce(devchain, address) == 0
        approve.click()

        deadline = time.monotonic() + 30
        with devchain.rpc(31337) as rpc:
            while int(rpc.call("eth_getBalance", [RECEIVER, "latest"]), 16) != before + 2 * 10**15:
                assert time.monotonic() < deadline, "the send never reached the receiver"
                time.sleep(0.05)
        # shown as sent, truthfully: no "Wallet request lost", no Try again, no second approval
        page.wait_for_function("!document.getElementById('account').textContent.includes('1.000 ETH')")
        expect(card).to_have_count(0)
        expect(page.get_by_text("Wallet request lost")).to_have_count(0)
        expect(page.get_by_role("button", name="Try again")).to_have_count(0)
        balance = re.search(r'"balance":"([^"]*)"', page.locator("#account").inner_text())
        assert balance is not None and balance.group(1).startswith("0.99"), balance  # fetched again
        page.wait_for_timeout(500)
        expect(page.locator('.wm-card[data-view="ApproveTransaction"]')).to_have_count(0)
        assert _nonce(devchain, address) == 1  # once
