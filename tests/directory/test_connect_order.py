"""Connect and All Wallets follow the behaviour.md §1 connector order with the host's options:
recent, injected, featured, custom, external, recommended; include / exclude ids."""

from __future__ import annotations

from modalcore.slices.directory_query import RECOMMENDED_ENTRIES

from .conftest import DEV, METAMASK, all_wallets, harness

CUSTOM = [{"id": "mine", "name": "My Wallet", "image_url": "https://img.example/mine.png",
           "webapp_link": "https://mine.example"},
          {"id": "other", "name": "Other Wallet", "mobile_link": "other://"}]


def test_connect_asks_for_4_recommended_wallets_once_open() -> None:
    h = harness(wallets=[DEV])
    assert h.directory_calls() == []  # nothing before the modal shows
    h.host("open")
    calls = h.directory_calls()
    assert [c.key for c in calls] == ["recommended"]
    assert calls[0].args_data["entries"] == RECOMMENDED_ENTRIES == 4 and calls[0].args_data["page"] == 1
    ids_before = [n.id for n in h.of_type("wallet-item")]
    assert ids_before == ["connect/wallet/dev.modalcore.devwallet", "connect/all-wallets"]  # no placeholders
    h.settle_directory()
    # AppKit caps the recommended rows at four less the installed wallets (issue 28 item 5)
    assert [n.id for n in h.of_type("wallet-item")] == [
        "connect/wallet/dev.modalcore.devwallet",
        "connect/w/metamask", "connect/w/trust", "connect/w/coinbase",
        "connect/all-wallets"]
    h.host("close")
    h.host("open")
    assert h.directory_calls() == []  # fetched once per session


def test_recommended_skips_an_installed_wallet() -> None:
    h = harness(wallets=[METAMASK])
    h.host("open")
    h.settle_directory()
    ids = [n.id for n in h.of_type("wallet-item")]
    assert ids[0] == "connect/wallet/io.metamask" and "connect/w/metamask" not in ids
    assert h.node("connect/wallet/io.metamask").p["tag"] == "INSTALLED"


def test_featured_then_custom_then_recommended_in_the_hosts_order() -> None:
    h = harness({"featuredWalletIds": ["zerion", "ledger", "nope"], "customWallets": CUSTOM}, wallets=[DEV])
    h.host("open")
    h.settle_directory()
    assert [n.id for n in h.of_type("wallet-item")] == [
        "connect/wallet/dev.modalcore.devwallet",
        "connect/w/zerion", "connect/w/ledger",  # featured, in the host's order
        "connect/custom/0", "connect/custom/1",
        # no recommended row: featured, custom and installed wallets fill AppKit's four
        "connect/all-wallets"]
    assert h.node("connect/custom/0").p["image"] == "https://img.example/mine.png"
    assert h.node("connect/custom/1").p["image"] == "/getWalletImage/other?name=Other%20Wallet"


def test_all_wallets_order_installed_featured_custom_then_pages() -> None:
    h = all_wallets({"featuredWalletIds": ["ledger", "zerion"], "customWallets": CUSTOM}, wallets=[DEV])
    ids = [n.id for n in h.items()]
    assert ids[:6] == ["all/wallet/dev.modalcore.devwallet", "all/w/ledger", "all/w/zerion",
                       "all/custom/0", "all/custom/1", "all/w/metamask"]
    assert ids.count("all/w/ledger") == 1  # featured wallets are not repeated by the pages


def test_exclude_removes_wallets_everywhere_and_include_restricts() -> None:
    h = all_wallets({"excludeWalletIds": ["metamask", "trust"]})
    names = h.names()
    assert "MetaMask" not in names and "Trust Wallet" not in names
    h.type("trust")
    h.advance(300)
    h.settle_directory()
    assert h.find("all/empty") is not None
    only = all_wallets({"includeWalletIds": ["rainbow", "zerion", "xverse"]})
    assert only.names() == ["Rainbow", "Zerion"]  # xverse serves no EVM chain
    assert only.model.directory.count == 2 and "more" not in (only.node("all/list").p.get("on") or {})


def test_custom_wallets_are_found_by_search() -> None:
    h = all_wallets({"customWallets": CUSTOM})
    h.type("my w")
    h.advance(300)
    h.settle_directory()
    assert [n.id for n in h.items()] == ["all/custom/0"]


def test_the_all_wallets_entry_follows_features_all_wallets() -> None:
    h = harness({"features": {"allWallets": False}})
    h.host("open")
    h.settle_directory()
    assert h.find("connect/all-wallets") is None


def test_recommended_rows_are_capped_as_appkit_one_less_for_email_and_for_socials_offered() -> None:
    """AppKit's getCappedRecommendedWallets: four, less one per installed, featured and custom
    wallet and one each for email and social sign-in (Connect keeps every method in sight)."""
    from dataclasses import replace

    h = harness(wallets=[DEV])
    model = h.model
    h.session.model = replace(model, embedded=replace(model.embedded, email_offered=True, socials=("google",)))
    h.host("open")
    h.settle_directory()
    assert [n.id for n in h.of_type("wallet-item")] == [
        "connect/wallet/dev.modalcore.devwallet", "connect/w/metamask", "connect/all-wallets"]
