"""Issue 19 in Chromium: the Dev Wallet's account 0 has the ENS name alice.eth on the local
chain; the connect button and the Account view show it (the engine looks it up, reverse then
forward, over the real node), and the host's `account` event carries it as `display`."""

from __future__ import annotations

import pytest

from .conftest import ACCOUNT_0, Demo, connect_dev_wallet

pytestmark = [pytest.mark.e2e, pytest.mark.chain]


def test_the_connect_button_and_account_show_the_ens_name(demo: Demo) -> None:
    from playwright.sync_api import expect

    card = connect_dev_wallet(demo)
    expect(card.get_by_text("alice.eth", exact=True)).to_be_visible()
    expect(card.get_by_text("0xf39F…2266")).to_have_count(0)
    account = demo.wait_host("account", lambda a: a.get("display") == "alice.eth")
    assert account["address"].lower() == ACCOUNT_0
    demo.page.keyboard.press("Escape")
    expect(demo.page.locator(".modalcore-connect-button")).to_contain_text("alice.eth")
