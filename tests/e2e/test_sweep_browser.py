"""Issue 14: every view × dark and light × desktop (1280×800) and phone (390×844) in Chromium.

Each combination is screenshotted to artifacts/sweep/ for a person to look at, and checked:
no text cut in buttons, tags and labels; nothing outside the card; zero serious or critical
axe-core violations (contrast included); on desktop, the card's top edge is the same in every
view. One page per screen size walks the flows once (disconnected views, then connected ones,
then sign-in), checking both themes at each stop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_testing import RunningServer

from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.devmail import LocalSmtpServer

from .checks import axe, card_box, clipped, outside, screenshot
from .conftest import REPO_ROOT, TIMEOUT_MS, Demo, open_account, open_modal, watch
from .test_embedded_browser import sign_in_by_email
from .test_smart_account_browser import (_smart_account, host_site, smart_dir, smart_engine, smtp,  # noqa: F401 (fixtures)
                                         wait_account)

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

SWEEP = REPO_ROOT / "artifacts" / "sweep"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
RECEIVER = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"


@dataclass
class Sweep:
    demo: Demo
    size: str
    theme: str = "dark"
    problems: list[str] = field(default_factory=list)
    tops: dict[str, float] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)

    def set_theme(self, mode: str) -> None:
        self.demo.eval(f"document.getElementById('theme-{mode}').click()")  # the page's switch: page and modal
        self.demo.page.locator(f'.wm-root[data-theme="{mode}"]').wait_for(state="attached")
        self.theme = mode

    def check(self, name: str) -> None:
        """Both themes of what the card shows now (the current theme first)."""
        self.seen.append(name)
        for mode in (self.theme, "light" if self.theme == "dark" else "dark"):
            if mode != self.theme:
                self.set_theme(mode)
            box = card_box(self.demo)
            if self.size == "desktop":
                self.tops[f"{name}/{mode}"] = box["top"]
            screenshot(self.demo, SWEEP, f"{self.size}-{mode}-{name}")
            where = f"{self.size}/{mode}/{name}"
            self.problems += [f"{where}: text cut: {t}" for t in clipped(self.demo)]
            self.problems += [f"{where}: outside the card: {t}" for t in outside(self.demo)[:5]]
            self.problems += [f"{where}: axe {v['impact']} {v['id']}: {v['help']} {v['nodes']}" for v in axe(self.demo)]


def new_demo(browser: Any, engine: RunningServer, size: str, query: str = "") -> Demo:
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(TIMEOUT_MS)
    demo = Demo(context, context.new_page(), engine.http_url)
    watch(demo)
    demo.goto(query)
    return demo


@pytest.fixture(params=list(SIZES))
def sweep(request: pytest.FixtureRequest, browser: Any, engine: RunningServer, chains: ChainsInfo) -> Iterator[Sweep]:
    demo = new_demo(browser, engine, request.param)
    try:
        yield Sweep(demo, request.param)
    finally:
        demo.context.close()
    assert demo.errors == [], f"the page logged problems: {demo.errors}"


def back(demo: Demo) -> None:
    demo.page.locator(".wm-header").get_by_role("button", name="Back").click()


def walk(s: Sweep, browser: Any, engine: RunningServer) -> None:
    """The disconnected views, then the connected ones, then the sign-in view on a page of its own."""
    walk_disconnected(s)
    walk_connected(s)
    walk_sign_in(s, browser, engine)


def presser(d: Demo) -> Callable[[str, str], None]:
    """press(view, name): click the first button so named in that view."""
    return lambda view, name: d.view(view).get_by_role("button", name=name).first.click()


def walk_disconnected(s: Sweep) -> None:
    d, press = s.demo, presser(s.demo)
    open_modal(d)
    d.wait_view("Connect").get_by_role("button", name="Dev Wallet").wait_for()
    s.check("Connect")
    press("Connect", "All Wallets")
    card = d.wait_view("AllWallets")
    card.locator(".wm-stack[data-grid] .wm-row").nth(12).wait_for()
    s.check("AllWallets")
    card.get_by_role("searchbox").fill("trust")
    d.page.wait_for_function(  # the answer drawn: no skeletons, fewer tiles than the whole list
        "() => { const r = document.querySelector('modalcore-modal').shadowRoot;"
        " return !r.querySelector('[aria-label=\"Loading wallets\"]') && r.querySelectorAll('.wm-card [data-nav]').length < 12; }")
    s.check("AllWallets-search")
    card.locator('[data-nav]', has_text="Trust").first.click()
    d.wait_view("WalletPage")
    s.check("WalletPage")
    back(d)
    d.wait_view("AllWallets")
    back(d)
    d.wait_view("Connect").get_by_role("button", name="Get started").click()
    d.wait_view("WhatIsAWallet")
    s.check("WhatIsAWallet")
    d.page.keyboard.press("Escape")
    d.call("window.demoModal.open({view: 'ConnectingWalletConnectBasic'})")
    d.wait_view("ConnectingWalletConnectBasic")
    s.check("ConnectingWalletConnectBasic")
    back_or_close = d.page.locator(".wm-header").get_by_role("button", name="Close")
    back_or_close.click()
    d.wait_host("state", lambda st: st.get("open") is False)

    open_modal(d)
    press("Connect", "WalletConnect")  # a live pairing on the session's local relay
    d.wait_view("ConnectingWalletConnect").get_by_role("img", name="WalletConnect QR code").wait_for()
    s.check("ConnectingWalletConnect")
    d.page.keyboard.press("Escape")
    d.wait_host("state", lambda st: st.get("open") is False)

    d.eval("window.devWallet.setPromptDelay(60000)")
    open_modal(d)
    press("Connect", "Dev Wallet")
    d.wait_view("ConnectingExternal")
    s.check("ConnectingExternal")
    d.eval("window.devWallet.setPromptDelay(0)")
    d.page.keyboard.press("Escape")


def walk_connected(s: Sweep) -> None:
    d, press = s.demo, presser(s.demo)
    d.reload()
    d.eval("window.devWallet.setPromptDelay(0)")
    s.set_theme(s.theme)
    open_modal(d)
    press("Connect", "Dev Wallet")
    account = open_account(d)
    account.locator(".wm-token").first.wait_for()
    s.check("Account-Tokens")
    account.get_by_role("tab", name="NFTs").click()
    account.locator('.wm-stack [role="img"], .wm-img').first.wait_for()
    s.check("Account-NFTs")
    account.get_by_role("tab", name="Activity").click()
    d.page.wait_for_timeout(300)
    s.check("Account-Activity")
    account.get_by_role("tab", name="Tokens").click()
    d.page.locator(".wm-header").get_by_role("button", name="Switch network").click()
    d.wait_view("Networks")
    s.check("Networks")
    back(d)
    press("Account", "Receive")
    d.wait_view("WalletReceive")
    s.check("WalletReceive")
    back(d)
    press("Account", "Send")
    form = d.wait_view("WalletSend")
    form.get_by_role("button", name="ETH").first.click()  # Send opens on the native token: the picker
    form.get_by_role("button", name="Test USD").wait_for()
    s.check("WalletSend-tokens")
    form.get_by_role("button", name="Test USD").click()
    form.get_by_role("textbox", name="Amount").fill("12.5")
    form.get_by_role("textbox", name="Receiver address").fill(RECEIVER)
    s.check("WalletSend")
    form.get_by_role("button", name="Preview send").click()
    d.wait_view("WalletSendPreview").get_by_role("button", name="Send", exact=True).wait_for()
    s.check("WalletSendPreview")
    back(d)
    back(d)
    d.wait_view("Account")
    d.eval("window.devWallet.setChain(1)")
    d.wait_view("UnsupportedChain")
    s.check("UnsupportedChain")


def walk_sign_in(s: Sweep, browser: Any, engine: RunningServer) -> None:
    signin = new_demo(browser, engine, s.size, "?siwx=required")
    try:
        s2 = Sweep(signin, s.size)
        s2.set_theme(s.theme)
        open_modal(signin)
        signin.wait_view("Connect").get_by_role("button", name="Dev Wallet").click()
        signin.wait_view("SIWXSignMessage").get_by_role("button", name="Sign", exact=True).wait_for()
        s2.check("SIWXSignMessage")
        s.problems += s2.problems
        s.tops.update(s2.tops)
        s.seen += s2.seen
        assert signin.errors == [], f"the sign-in page logged problems: {signin.errors}"
    finally:
        signin.context.close()


def test_every_view_in_both_themes_draws_cleanly(sweep: Sweep, browser: Any, engine: RunningServer) -> None:
    walk(sweep, browser, engine)
    assert len(sweep.seen) == 18
    assert sweep.problems == [], "\n".join(sweep.problems)
    if sweep.size == "desktop":
        tops = {round(top) for top in sweep.tops.values()}
        assert len(tops) == 1, f"the card's top edge moves between views: {sweep.tops}"


@dataclass
class HostSweep(Sweep):
    """The sweep on a host page of the smart-account engine: its theme set by the host API."""

    def set_theme(self, mode: str) -> None:
        self.demo.eval(f"window.hostModal.setThemeMode('{mode}')")
        self.demo.page.locator(f'.wm-root[data-theme="{mode}"]').wait_for(state="attached")
        self.theme = mode


def test_the_smart_account_views_at_phone_size_draw_cleanly(
        browser: Any, host_site: str, smtp: LocalSmtpServer, aachains: AaChains) -> None:  # noqa: F811
    """Issues 32 and 33's views in the phone sweep (issue 39): Account with the smart-account
    switch (both account types) and CallsStatus after a sponsored wallet_sendCalls, both themes,
    at 390×844, with the same checks as every other view."""
    width, height = SIZES["phone"]
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    demo = Demo(context, page, host_site)
    watch(demo)
    s = HostSweep(demo, "phone")
    try:
        page.goto(host_site)
        page.wait_for_function("window.hostModal !== undefined")
        sign_in_by_email(page, smtp, "sweep@example.com")
        smart, eoa = _smart_account(page)
        with aachains.chains.rpc(31337) as rpc:
            rpc.call("hardhat_setBalance", [smart, hex(10**18)])
        if not demo.view("Account").is_visible():
            page.click("#open")
        account = demo.wait_view("Account")
        account.get_by_role("button", name="Switch to your EOA").wait_for()
        s.check("Account-smart-account")
        account.get_by_role("button", name="Switch to your EOA").click()
        wait_account(page, eoa)
        if not demo.view("Account").is_visible():
            page.click("#open")
        account = demo.wait_view("Account")
        account.get_by_role("button", name="Switch to your Smart Account").wait_for()
        s.check("Account-eoa")
        account.get_by_role("button", name="Switch to your Smart Account").click()
        wait_account(page, smart)
        page.evaluate(
            "(from) => { window.sent = null; window.hostModal.getProvider().request({method: 'wallet_sendCalls',"
            " params: [{version: '2.0.0', chainId: '0x7a69', from, atomicRequired: true,"
            f" calls: [{{to: '{RECEIVER}', value: '0x2386f26fc10000'}}]}}]}})"
            ".then((r) => { window.sent = r; }, (e) => { window.sent = {error: String(e)}; }); }", smart)
        demo.wait_view("ApproveTransaction")
        page.frame_locator("iframe.wm-frame").get_by_role("button", name="Approve").click()
        page.wait_for_function("window.sent !== null", timeout=60_000)
        sent = page.evaluate("window.sent")
        assert "error" not in sent, sent
        page.evaluate("(id) => window.hostModal.getProvider().request({method: 'wallet_showCallsStatus', params: [id]})",
                      sent["id"])
        status = demo.wait_view("CallsStatus")
        status.get_by_text("Calls confirmed").wait_for(timeout=60_000)
        s.check("CallsStatus")
        assert demo.errors == [], f"the page logged problems: {demo.errors}"
    finally:
        context.close()
    assert s.seen == ["Account-smart-account", "Account-eoa", "CallsStatus"]
    assert s.problems == [], "\n".join(s.problems)
