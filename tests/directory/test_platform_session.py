"""Platform rules in a session: the join's env decides, never the server (behaviour.md §5)."""

from __future__ import annotations

from modalcore.slices import directory_wallets
from modalcore.enginetest import build_model

from .conftest import all_wallets, harness

IOS = {"mobile": True, "platform": "ios"}


def test_on_mobile_all_wallets_lists_mobile_wallets_only() -> None:
    h = harness(env=IOS)
    h.host("open", view="AllWallets")
    assert h.view == "AllWallets"
    page = next(c for c in h.directory_calls() if c.key == "page:1")
    assert page.args_data["mobile"] is True
    h.settle_directory()
    ids = {n.id.removeprefix("all/w/") for n in h.items()}
    assert {"metamask", "rainbow", "coinbase", "phantom"} <= ids
    assert {"rabby", "frame", "taho", "brave"}.isdisjoint(ids)  # extensions only: no mobile link


def test_desktop_sees_extension_wallets() -> None:
    h = all_wallets()
    h.intent("all/list", "more")
    h.settle_directory()
    assert {"rabby", "frame"} <= {n.id.removeprefix("all/w/") for n in h.items()}


def test_universal_provider_mode_drops_wallets_without_links() -> None:
    h = all_wallets({"universalProvider": True})
    ids = {n.id.removeprefix("all/w/") for n in h.items()}
    assert "safe" in ids and "metamask" in ids
    assert {"rabby", "coinbase", "phantom", "frame"}.isdisjoint(ids)
    assert h.model.directory.count < 50


def test_custom_wallets_follow_the_same_rules() -> None:
    custom = [{"id": "web", "name": "Web Only", "webapp_link": "https://w.example"},
              {"id": "bare", "name": "Bare"}, {"id": "app", "name": "App", "mobile_link": "app://"}]
    mobile = build_model({"networks": ["eip155:1"], "customWallets": custom}, env=IOS)
    assert [w.id for w in directory_wallets.custom_wallets(mobile)] == ["app"]
    universal = build_model({"networks": ["eip155:1"], "customWallets": custom, "universalProvider": True})
    assert [w.id for w in directory_wallets.custom_wallets(universal)] == ["web", "app"]


def test_telegram_socials_come_from_the_join_env() -> None:
    android = build_model(env={"mobile": True, "platform": "android", "telegram": True})
    assert directory_wallets.socials(android) == ("google", "discord", "farcaster", "github", "apple")
    mac = build_model(env={"platform": "mac", "telegram": True})
    assert "x" not in directory_wallets.socials(mac) and "google" in directory_wallets.socials(mac)
    plain = build_model(env={"platform": "ios", "mobile": True})
    assert "google" in directory_wallets.socials(plain)
