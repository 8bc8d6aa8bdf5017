"""behaviour.md §2 "Opening rules": the view `open()` shows."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from modalcore.enginetest import Harness, connected_accounts

Make = Callable[..., Harness]
MOBILE = {"mobile": True, "platform": "ios"}


def test_open_shows_the_callers_view(make: Make) -> None:
    h = make(accounts=connected_accounts(), options={"networks": ["eip155:1"], "manualWCControl": True})
    assert h.host("open", view="AllWallets") == "ok"
    assert h.history == ["AllWallets"]
    assert h.model.modal.open
    assert h.node("modal").p["open"] is True


def test_open_with_an_unknown_view_follows_the_rules(make: Make) -> None:
    h = make()
    assert h.host("open", view="NoSuchView") == "ok"
    assert h.view == "Connect"


def test_open_with_manual_pairing_control_shows_basic_on_desktop(make: Make) -> None:
    h = make(options={"networks": ["eip155:1"], "manualWCControl": True})
    h.host("open")
    assert h.history == ["ConnectingWalletConnectBasic"]


def test_open_with_manual_pairing_control_and_an_address_still_shows_basic(make: Make) -> None:
    h = make(options={"networks": ["eip155:1"], "manualWCControl": True}, accounts=connected_accounts())
    h.host("open")
    assert h.view == "ConnectingWalletConnectBasic"


def test_open_with_manual_pairing_control_shows_all_wallets_on_mobile(make: Make) -> None:
    h = make(options={"networks": ["eip155:1"], "manualWCControl": True}, env=MOBILE)
    h.host("open")
    assert h.history == ["AllWallets"]


def test_open_without_adapters_and_without_address_shows_basic(make: Make) -> None:
    h = make(options={"networks": []})
    h.host("open")
    assert h.history == ["ConnectingWalletConnectBasic"]


def test_open_without_adapters_and_without_address_shows_all_wallets_on_mobile(make: Make) -> None:
    h = make(options={"networks": []}, env=MOBILE)
    h.host("open")
    assert h.history == ["AllWallets"]


def test_open_on_mobile_with_adapters_and_without_an_address_shows_connect(make: Make) -> None:
    # AppKit's ModalController.open: AllWallets on a phone only in the manual-pairing / no-adapter
    # branch; otherwise Connect, where email, socials, WalletConnect and help are (issue 28)
    h = make(env=MOBILE)
    h.host("open")
    assert h.history == ["Connect"]
    assert h.find("view/Connect") is not None


def test_open_with_an_address_shows_account(make: Make) -> None:
    h = make(accounts=connected_accounts())
    h.host("open")
    assert h.history == ["Account"]
    assert h.node("modal").p["view"] == "Account"


def test_open_on_mobile_with_an_address_shows_account(make: Make) -> None:
    h = make(accounts=connected_accounts(), env=MOBILE)
    h.host("open")
    assert h.history == ["Account"]


def test_open_otherwise_shows_connect(make: Make) -> None:
    h = make()
    h.host("open")
    assert h.history == ["Connect"]
    assert h.node("view/Connect").p["name"] == "Connect"


@pytest.mark.parametrize("view", ["Connect", "AllWallets", "WhatIsAWallet"])
def test_open_twice_resets_to_the_opening_view(make: Make, view: str) -> None:
    h = make()
    h.host("open", view=view)
    h.host("open")
    assert h.history == ["Connect"]


# Views that draw the connected account; `open({view})` naming one with no account follows the
# opening rules above instead (issue 11).
NEEDS_ACCOUNT = ["Account", "WalletSend", "WalletSendPreview", "WalletReceive", "SIWXSignMessage",
                 "UnsupportedChain"]


@pytest.mark.parametrize("view", NEEDS_ACCOUNT)
def test_open_naming_a_view_that_needs_an_account_without_one_follows_the_rules(make: Make, view: str) -> None:
    h = make()
    assert h.host("open", view=view) == "ok"
    assert h.history == ["Connect"]
    assert h.node("modal").p["view"] == "Connect"
    assert h.find(f"view/{view}") is None


@pytest.mark.parametrize("view", NEEDS_ACCOUNT)
def test_open_naming_a_view_that_needs_an_account_on_mobile_without_one_shows_connect(
        make: Make, view: str) -> None:
    h = make(env=MOBILE)
    assert h.host("open", view=view) == "ok"
    assert h.history == ["Connect"]


@pytest.mark.parametrize("view", NEEDS_ACCOUNT)
def test_open_naming_a_view_that_needs_an_account_with_one_shows_it(make: Make, view: str) -> None:
    h = make(accounts=connected_accounts())
    assert h.host("open", view=view) == "ok"
    assert h.history == [view]
    assert h.node("modal").p["view"] == view


@pytest.mark.parametrize("view", ["ConnectingExternal", "WalletPage"])
def test_open_naming_a_view_about_one_wallet_follows_the_rules(make: Make, view: str) -> None:
    # the host API cannot name the wallet: such a view would wait on nothing
    h = make()
    assert h.host("open", view=view) == "ok"
    assert h.history == ["Connect"]


@pytest.mark.parametrize("view", ["Networks", "WhatIsAWallet", "AllWallets", "ConnectingWalletConnectBasic"])
def test_open_naming_a_view_that_needs_no_account_shows_it_without_one(make: Make, view: str) -> None:
    h = make()
    assert h.host("open", view=view) == "ok"
    assert h.history == [view]
