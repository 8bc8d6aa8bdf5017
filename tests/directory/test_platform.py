"""behaviour.md §5 platform rules: mobile filtering, universal provider, Telegram socials; links."""

from __future__ import annotations

import pytest

from modalcore.directory.domain.platform import browse_link, link_target, safe_link, usable, visible_socials
from modalcore.directory.domain.wallets import Wallet
from modalcore.slices.options import SOCIALS
from modalcore.wire.frames import Env

APP = Wallet("app", "App Wallet", mobile_link="app://")
DESKTOP = Wallet("desk", "Desk Wallet", desktop_link="desk://")
WEB = Wallet("web", "Web Wallet", webapp_link="https://web.example")
BARE = Wallet("bare", "Extension Only")
COINBASE = Wallet("coinbase", "Coinbase Wallet", rdns="com.coinbase.wallet")
PHANTOM_HOSTED = Wallet("a797aa35c0fadbfc1a53e7f675162ed5226968b4", "Phantom", rdns="app.phantom")


def test_mobile_keeps_wallets_with_a_mobile_link_and_the_two_special_ones() -> None:
    kept = [w.id for w in (APP, DESKTOP, WEB, BARE, COINBASE, PHANTOM_HOSTED)
            if usable(w, mobile=True, universal=False)]
    assert kept == ["app", "coinbase", PHANTOM_HOSTED.id]  # special by id or by rdns


def test_desktop_keeps_every_wallet() -> None:
    assert all(usable(w, mobile=False, universal=False) for w in (APP, DESKTOP, WEB, BARE, COINBASE))


def test_universal_provider_drops_wallets_without_any_link() -> None:
    kept = [w.id for w in (APP, DESKTOP, WEB, BARE, COINBASE) if usable(w, mobile=False, universal=True)]
    assert kept == ["app", "desk", "web"]
    assert [w.id for w in (APP, DESKTOP, WEB) if usable(w, mobile=True, universal=True)] == ["app"]


@pytest.mark.parametrize(("platform", "telegram", "expected"), [
    ("ios", True, ("x", "discord", "farcaster", "github", "apple", "facebook")),
    ("mac", True, ("google", "discord", "farcaster", "github", "apple", "facebook")),
    ("android", True, ("google", "discord", "farcaster", "github", "apple")),
    ("windows", True, SOCIALS),
    ("linux", True, SOCIALS),
    ("ios", False, SOCIALS),
    ("android", False, SOCIALS),
])
def test_telegram_social_rules_per_platform(platform: str, telegram: bool, expected: tuple[str, ...]) -> None:
    env = Env(platform=platform, telegram=telegram, mobile=platform in ("ios", "android"))  # type: ignore[arg-type]
    assert visible_socials(SOCIALS, env) == expected


def test_telegram_rules_keep_the_hosts_order_and_choice() -> None:
    env = Env(platform="android", telegram=True, mobile=True)
    assert visible_socials(("x", "github", "facebook"), env) == ("github",)


def test_browse_links_of_the_special_wallets() -> None:
    page = "https://app.example.com/swap?x=1"
    assert browse_link(COINBASE, page) == "https://go.cb-w.com/dapp?cb_url=https%3A%2F%2Fapp.example.com%2Fswap%3Fx%3D1"
    assert browse_link(PHANTOM_HOSTED, page) == (
        "https://phantom.app/ul/browse/https%3A%2F%2Fapp.example.com%2Fswap%3Fx%3D1?ref=https%3A%2F%2Fapp.example.com")
    assert browse_link(APP, page) is None
    assert browse_link(COINBASE, "") is None


@pytest.mark.parametrize(("url", "safe"), [
    ("metamask://", "metamask://"), ("https://app.safe.global", "https://app.safe.global"),
    ("javascript:alert(1)", None), ("JaVaScRiPt:alert(1)", None), ("data:text/html,x", None),
    ("", None), (None, None), ("no-scheme", None),
])
def test_only_web_and_app_links_may_be_opened(url: str | None, safe: str | None) -> None:
    assert safe_link(url) == safe


def test_web_links_open_in_a_new_tab_and_app_links_in_place() -> None:
    assert link_target("https://x.example") == "_blank"
    assert link_target("ledgerlive://") == "_self"
