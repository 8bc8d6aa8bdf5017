"""Choosing a wallet that is not installed: its page with the links this device can open,
through `open_url` effects, and no QR code while WalletConnect pairing does not exist."""

from __future__ import annotations

from modalcore.icons import icon_set
from modalcore.slices.directory_wallets import PressedDirectoryWallet, PressedWalletLink

from .conftest import METAMASK, DirHarness, all_wallets, harness

CUSTOM = [{"id": "mine", "name": "My Wallet", "webapp_link": "https://mine.example/app",
           "desktop_link": "mine://", "mobile_link": "javascript:alert(1)"}]


def _open_wallet(h: DirHarness, wallet_id: str) -> None:
    h.type(wallet_id)
    h.advance(300)
    h.settle_directory()
    h.press(f"all/w/{wallet_id}")


def test_an_extension_wallet_without_a_link_here_says_how_to_get_it_instead_of_a_dead_qr() -> None:
    h = all_wallets()
    h.press("all/w/rainbow")
    assert h.view == "WalletPage" and h.history == ["AllWallets", "WalletPage"]
    assert h.node("header").p["title"] == "Rainbow"
    assert h.node("wallet/logo").p["src"] == icon_set().path("wallet", "rainbow")
    assert h.node("wallet/hint").p["text"] == (
        "Install the Rainbow extension in this browser, then come back: it will be listed as installed.")
    assert h.of_type("qr") == [] and h.find("wallet/links") is None


def test_desktop_and_web_app_links_open_through_open_url() -> None:
    h = all_wallets()
    _open_wallet(h, "ledger")
    assert [n.id for n in h.node("wallet/links").c] == ["wallet/open/desktop"]
    h.press("wallet/open/desktop")
    effect = h.effects()[-1]
    assert effect["kind"] == "open_url" and effect["req"] == {"url": "ledgerlive://", "target": "_self"}
    _open_wallet_from_back(h, "safe")
    h.press("wallet/open/webapp")
    assert h.effects()[-1]["req"] == {"url": "https://app.safe.global", "target": "_blank"}


def _open_wallet_from_back(h: DirHarness, wallet_id: str) -> None:
    h.press("header/back")
    assert h.view == "AllWallets"
    _open_wallet(h, wallet_id)


def test_coming_back_from_a_wallet_keeps_the_search() -> None:
    h = all_wallets()
    _open_wallet(h, "ledger")
    h.press("header/back")
    assert h.node("all/search").p["value"] == "ledger" and h.names() == ["Ledger Live"]


def test_on_mobile_the_deep_link_and_the_special_wallets_browse_link() -> None:
    h = harness({"metadata": {"name": "Demo", "url": "https://dapp.example/swap"}},
                env={"mobile": True, "platform": "android"})
    h.host("open", view="AllWallets")
    h.settle_directory()
    _open_wallet(h, "metamask")
    assert [n.id for n in h.node("wallet/links").c] == ["wallet/open/mobile"]
    assert h.node("wallet/open/mobile").p["text"] == "Open MetaMask"
    h.press("wallet/open/mobile")
    assert h.effects()[-1]["req"] == {"url": "metamask://", "target": "_self"}
    _open_wallet_from_back(h, "coinbase")
    h.press("wallet/open/mobile")
    assert h.effects()[-1]["req"] == {
        "url": "https://go.cb-w.com/dapp?cb_url=https%3A%2F%2Fdapp.example%2Fswap", "target": "_blank"}


def test_custom_wallet_links_are_checked_before_they_are_offered() -> None:
    h = harness({"customWallets": CUSTOM})
    h.host("open")
    h.settle_directory()
    h.press("connect/custom/0")
    assert h.view == "WalletPage"
    assert [n.id for n in h.node("wallet/links").c] == ["wallet/open/desktop", "wallet/open/webapp"]
    mobile = harness({"customWallets": CUSTOM}, env={"mobile": True, "platform": "ios"})
    mobile.host("open", view="AllWallets")
    mobile.settle_directory()
    assert mobile.view == "AllWallets"
    assert mobile.find("all/custom/0") is None  # its only mobile link is not a link


def test_pressing_an_installed_wallet_from_the_directory_connects_it() -> None:
    h = harness({"featuredWalletIds": ["metamask"]}, wallets=[METAMASK])
    h.host("open")
    h.settle_directory()
    assert h.find("connect/w/metamask") is None
    h.deliver(PressedDirectoryWallet("metamask"))  # e.g. a featured row drawn before the announcement
    assert h.view == "ConnectingExternal"


def test_a_link_press_on_another_view_does_nothing() -> None:
    h = all_wallets()
    before = len(h.effects())
    h.deliver(PressedWalletLink("webapp"))
    assert len(h.effects()) == before
