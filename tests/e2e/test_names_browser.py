"""Issue 19 in Chromium: the Dev Wallet's account 0 has the ENS name alice.eth on the local
chain; the connect button and the Account view show it (the engine looks it up, reverse then
forward, over the real node), and the host's `account` event carries it as `display`."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ACCOUNT_0, Demo, connect_dev_wallet

pytestmark = [pytest.mark.e2e, pytest.mark.chain]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "names"


def test_the_connect_button_and_account_show_the_ens_name(demo: Demo) -> None:
    from playwright.sync_api import expect

    card = connect_dev_wallet(demo)
    expect(card.get_by_text("alice.eth", exact=True)).to_be_visible()
    expect(card.get_by_text("0xf39F…2266")).to_have_count(0)
    account = demo.wait_host("account", lambda a: a.get("display") == "alice.eth")
    assert account["address"].lower() == ACCOUNT_0
    demo.page.keyboard.press("Escape")
    expect(demo.page.locator(".modalcore-connect-button")).to_contain_text("alice.eth")


def test_an_auth_connector_account_registers_a_name_in_chromium(demo: Demo) -> None:
    """RegisterAccountName end to end: a provider announced with the auth connector's id
    (ID_AUTH: the embedded wallet stands there; the Dev Wallet's provider answers for it), a
    name typed, found free after the pause, signed with personal_sign by the Dev Wallet,
    verified and stored by the engine, then shown on the success view and in Account."""
    from playwright.sync_api import expect

    demo.eval("window.devWallet.setAccountIndex(5)")  # an account without an ENS name
    demo.eval("""() => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', {detail: Object.freeze({
        info: Object.freeze({uuid: 'ID_AUTH', name: 'Email Wallet', icon: 'data:image/svg+xml,%3Csvg%20xmlns=%22http://www.w3.org/2000/svg%22/%3E', rdns: ''}),
        provider: window.devWallet.provider})}))""")
    demo.page.locator(".modalcore-connect-button").click()
    demo.wait_view("Connect").get_by_role("button", name="Email Wallet").click()
    demo.wait_host("account", lambda a: a.get("connector") == "ID_AUTH" and a.get("isConnected") is True)
    demo.page.locator(".modalcore-connect-button").click()
    demo.wait_view("Account").get_by_role("button", name="Choose a name").click()
    card = demo.wait_view("RegisterAccountName")
    card.get_by_role("textbox", name="Account name").fill("satoshi")
    expect(card.get_by_text("satoshi.reown.id is available")).to_be_visible()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    card.screenshot(path=str(ARTIFACTS / "RegisterAccountName.png"))  # for a person to look at
    card.get_by_role("button", name="Register").click()
    success = demo.wait_view("RegisterAccountNameSuccess")
    expect(success.get_by_text("satoshi.reown.id", exact=True)).to_be_visible()
    success.screenshot(path=str(ARTIFACTS / "RegisterAccountNameSuccess.png"))
    signed = demo.wallet_requests("personal_sign")
    assert len(signed) == 1 and signed[0]["ok"]
    success.get_by_role("button", name="Done").click()
    expect(demo.wait_view("Account").get_by_text("satoshi.reown.id", exact=True)).to_be_visible()
    demo.wait_host("account", lambda a: a.get("display") == "satoshi.reown.id")
