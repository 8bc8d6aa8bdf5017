"""Issue 28 in Chromium on a phone (390×844, a touch device with a phone's user agent): opening
lands on Connect, where email, every configured social, WalletConnect and the help entry are
(AppKit's opening rule); WalletConnect leads to the wallets, and a wallet picked there is opened
by its deep link carrying the pairing URI (AppKit's formatNativeUrl), not by a QR code."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_dev.devoidc import DevOidcProvider
from modalcore_testing import RunningServer, serve_app

from .conftest import TIMEOUT_MS, Relay, requested_navigations, serve
from .test_embedded_browser import HOST_PAGE, embedded_engine_config

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

PHONE_UA = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/120.0 Mobile Safari/537.36")


@pytest.fixture(scope="module")
def phone_host(devchains: ChainsInfo, provider: DevOidcProvider, engine_port: int, wc_relay: Relay,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The host dApp on its own origin, its engine with email, Google and WalletConnect."""
    folder: Path = tmp_path_factory.mktemp("phone-e2e")
    smtp = LocalSmtpServer().start()
    config = embedded_engine_config(folder, devchains, {
        "public_url": f"http://127.0.0.1:{engine_port}",
        "smtp": {"host": "127.0.0.1", "port": smtp.port, "tls": "none", "sender": "Wallet <no-reply@modal.test>"},
        "socials": {"google": {"issuer": provider.issuer, "client_id": provider.client_id}},
    }, walletconnect={"relay_url": wc_relay.url})

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(HOST_PAGE % {"engine": f"http://127.0.0.1:{engine_port}", "siwx": "", "theme": ""})

    try:
        with serve(config, engine_port), serve_app(Starlette(routes=[Route("/", page)])) as host:
            yield host.http_url
    finally:
        smtp.stop()


def _phone(browser: Any) -> Any:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  user_agent=PHONE_UA)
    context.set_default_timeout(TIMEOUT_MS)
    return context


def test_a_phone_opens_on_connect_with_email_socials_walletconnect_and_help(browser: Any, phone_host: str) -> None:
    from playwright.sync_api import expect

    context = _phone(browser)
    try:
        page = context.new_page()
        page.goto(phone_host)
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        card = page.locator('.wm-card[data-view="Connect"]')
        card.wait_for(state="visible")
        expect(card.get_by_role("textbox", name="Email")).to_have_count(1)
        expect(card.get_by_text("Continue with Google")).to_have_count(1)
        expect(card.get_by_role("button", name="WalletConnect")).to_have_count(1)
        helpful = re.compile("get started|what is a wallet|help", re.I)  # the footer link or a "?" entry
        help_entry = card.get_by_role("button", name=helpful).or_(card.get_by_role("link", name=helpful))
        expect(help_entry.first).to_be_attached()
        help_entry.first.click()
        page.locator('.wm-card[data-view="WhatIsAWallet"]').wait_for(state="visible")
    finally:
        context.close()


def test_a_phone_opens_a_walletconnect_wallet_by_its_deep_link_with_the_uri(browser: Any, phone_host: str) -> None:
    context = _phone(browser)
    try:
        page = context.new_page()
        navigations = requested_navigations(context, page)
        page.goto(phone_host)
        page.wait_for_function("window.hostModal !== undefined")
        page.click("#open")
        page.locator('.wm-card[data-view="Connect"]').get_by_role("button", name="WalletConnect").click()
        wallets = page.locator('.wm-card[data-view="AllWallets"]')
        wallets.wait_for(state="visible")
        wallets.get_by_role("searchbox").or_(wallets.get_by_role("textbox")).first.fill("metamask")
        wallets.get_by_role("button", name=re.compile("^MetaMask")).first.click()
        card = page.locator('.wm-card[data-view="WalletPage"]')
        card.wait_for(state="visible")
        deadline = TIMEOUT_MS / 1000
        waited = 0.0
        while not any(url.startswith("metamask://wc?uri=") for url in navigations) and waited < deadline:
            page.wait_for_timeout(100)
            waited += 0.1
        opened = [url for url in navigations if url.startswith("metamask://wc?uri=")]
        assert opened, f"no deep link opened; navigations: {navigations}"
        assert unquote(opened[0].removeprefix("metamask://wc?uri=")).startswith("wc:")
        assert card.locator(".wm-qr").count() == 0
        assert card.get_by_role("button", name="Copy link").count() == 1
    finally:
        context.close()
