"""All Wallets in a session: pages of 40 with infinite scroll, images for the first 20, the
rounded total, search with a 300 ms debounce on the fake clock (behaviour.md §9)."""

from __future__ import annotations

from dataclasses import replace

from modalcore.icons import icon_set
from modalcore.core.cmds import Call
from modalcore.slices.directory_search import SEARCH_TIMER

from .conftest import METAMASK, all_wallets, harness


def test_opening_all_wallets_fetches_page_one_and_shows_skeletons_meanwhile() -> None:
    h = harness()
    h.host("open", view="AllWallets")
    pages = [c for c in h.directory_calls() if c.key == "page:1"]
    assert len(pages) == 1
    assert pages[0].args_data["page"] == 1 and pages[0].args_data["entries"] == 40
    assert pages[0].args_data["chains"] == ["eip155:1"] and pages[0].args_data["mobile"] is False
    assert h.find("all/list") is None and len(h.node("all/loading").c) == 8
    h.settle_directory()
    assert h.find("all/loading") is None and len(h.items()) == 40


def test_the_list_asks_for_more_and_appends_the_next_page() -> None:
    h = all_wallets()
    listing = h.node("all/list")
    assert listing.p["on"] == {"more": None}
    first = h.names()
    assert h.intent("all/list", "more") == "ok"
    assert [c.args_data["page"] for c in h.directory_calls()] == [2]
    assert h.node("all/list").p.get("on") is None  # no second `more` while page 2 loads
    assert len(h.node("all/loading").c) == 4
    h.intent("all/list", "more")  # a duplicate is harmless
    assert [c.args_data["page"] for c in h.directory_calls()] == [2]
    h.settle_directory()
    assert h.names()[:40] == first and len(h.names()) == 80


def test_infinite_scroll_stops_at_the_end_of_the_directory() -> None:
    h = all_wallets()
    total = h.model.directory.count
    pages = 1
    while "more" in (h.node("all/list").p.get("on") or {}):
        h.intent("all/list", "more")
        h.settle_directory()
        pages += 1
    assert pages == -(-total // 40) and len(h.items()) == total
    assert len({n.id for n in h.items()}) == total  # each wallet once
    assert h.find("all/loading") is None


def test_images_fetched_at_once_for_the_first_20_of_each_page_the_rest_as_they_scroll_in() -> None:
    """behaviour.md §9 (images fetched for the first 20 of a page) and issue 14 defect 8: the other
    tiles still get their image, marked `lazy` (fetched once scrolled into view), never a
    grey placeholder for good."""
    h = all_wallets()
    h.intent("all/list", "more")
    h.settle_directory()
    assert all(n.p["image"] for n in h.items())
    lazy = [n.p.get("lazy") is True for n in h.items()]
    assert lazy == [False] * 20 + [True] * 20 + [False] * 20 + [True] * 20
    assert h.items()[0].p["image"] == icon_set().path("wallet", "metamask")  # a wallet with a mark
    no_mark = next(n for n in h.items() if n.id.endswith("/uniswap"))
    assert no_mark.p["image"] == "/getWalletImage/uniswap"  # none in the set: the engine's monogram


def test_the_total_is_rounded_down_to_tens_with_a_plus() -> None:
    h = all_wallets()
    assert h.model.directory.count == 101  # the EVM wallets of the curated directory
    assert h.node("all/search").p["placeholder"] == "Search 100+ wallets"
    h.host("close")
    h.host("open")
    h.settle_directory()
    assert h.node("connect/all-wallets").p["tag"] == "100+"


def test_typing_fast_sends_one_query_after_300_ms() -> None:
    h = all_wallets()
    h.type("rain", every_ms=50)
    assert h.directory_calls() == []  # still typing
    assert h.node("all/search").p["value"] == "rain"
    assert h.find("all/loading") is not None  # searching...
    due = h.timer_due(SEARCH_TIMER)
    assert due == h.now + 250  # 300 ms after the last keystroke
    h.advance(249)
    assert h.directory_calls() == []
    h.advance(1)
    calls = h.directory_calls()
    assert len(calls) == 1
    assert calls[0].args_data["search"] == "rain" and calls[0].args_data["entries"] == 100
    assert calls[0].args_data["page"] == 1
    h.settle_directory()
    assert h.names() == ["Rainbow"]
    assert h.find("all/list") is not None and "more" not in (h.node("all/list").p.get("on") or {})


def test_an_answer_to_an_older_query_is_dropped() -> None:
    h = all_wallets()
    h.type("rai")
    h.advance(300)
    assert len(h.directory_calls()) == 1
    h.type("meta")  # replaces the text before the first answer came back
    h.settle_directory()  # the old answer arrives now: it must not show
    assert h.model.directory.results == () and h.find("all/loading") is not None
    h.advance(300)
    h.settle_directory()
    assert h.names()[0] == "MetaMask"


def test_search_shows_at_most_100_and_an_empty_answer_says_so() -> None:
    h = all_wallets({"networks": ["eip155:1"]})
    h.type("zzqx")
    h.advance(300)
    h.settle_directory()
    assert h.node("all/empty/icon").p["name"] == "wallet"  # a mark above the words, not bare text
    assert h.node("all/empty/text").p["text"] == "No Wallet found"
    h.type("a")
    h.advance(300)
    h.settle_directory()
    assert 40 < len(h.items()) <= 100
    assert [n.p.get("lazy") is True for n in h.items()][:21] == [False] * 20 + [True]


def test_clearing_the_search_shows_the_pages_again_at_once() -> None:
    h = all_wallets()
    h.type("rain")
    assert h.intent("all/search", "change", {"value": ""}) == "ok"
    assert SEARCH_TIMER not in h.timers
    assert len(h.items()) == 40 and h.directory_calls() == []


def test_search_is_reset_on_a_new_visit() -> None:
    h = all_wallets()
    h.type("rain")
    h.advance(300)
    h.settle_directory()
    h.host("close")
    h.host("open", view="AllWallets")
    h.settle_directory()
    assert h.node("all/search").p["value"] == "" and len(h.items()) == 40


def test_installed_wallets_come_first_marked_and_connect() -> None:
    h = all_wallets(wallets=[METAMASK])
    items = h.items()
    assert items[0].id == "all/wallet/io.metamask" and items[0].p["tag"] == "INSTALLED"
    assert "all/w/metamask" not in {n.id for n in items}  # the directory's entry is that wallet
    h.press("all/wallet/io.metamask")
    assert h.view == "ConnectingExternal"
    assert h.effects()[-1]["req"] == {"connector": "mm-uuid", "method": "eth_requestAccounts", "params": []}


def test_an_installed_wallet_found_by_search_connects() -> None:
    h = all_wallets(wallets=[METAMASK])
    h.type("metam")
    h.advance(300)
    h.settle_directory()
    assert [n.id for n in h.items()] == ["all/wallet/io.metamask"]
    assert h.items()[0].p["tag"] == "INSTALLED"


def test_recent_wallets_come_first() -> None:
    rabby = {"uuid": "rb", "name": "Rabby Wallet", "icon": "", "rdns": "io.rabby"}
    h = harness(wallets=[METAMASK, rabby])
    h.session.model = replace(h.model, connectors=replace(h.model.connectors, recent=("io.rabby",)))
    h.host("open", view="AllWallets")
    h.settle_directory()
    first = h.items()[:2]
    assert [(n.id, n.p["tag"]) for n in first] == [("all/wallet/io.rabby", "RECENT"),
                                                    ("all/wallet/io.metamask", "INSTALLED")]


def test_a_failed_page_says_so_and_is_retried_on_the_next_visit() -> None:
    h = harness()
    h.host("open", view="AllWallets")
    h.settle_directory(ok=False)
    assert h.node("all/empty/text").p["text"] == "The wallet list is unavailable right now."
    h.host("close")
    h.host("open", view="AllWallets")
    assert [c.key for c in h.directory_calls() if "page" in c.key] == ["page:1"]


def test_every_query_carries_the_hosts_filters() -> None:
    options = {"networks": ["eip155:1", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"],
               "includeWalletIds": ["a", "b"], "excludeWalletIds": ["x"], "featuredWalletIds": ["f"]}
    h = harness(options)
    h.host("open", view="AllWallets")
    by_purpose = {"directory|" + c.key: c.args_data for c in h.directory_calls()}
    assert by_purpose["directory|page:1"]["include"] == ["a", "b"]
    assert by_purpose["directory|page:1"]["exclude"] == ["x", "f"]
    assert by_purpose["directory|page:1"]["chains"] == options["networks"]
    assert by_purpose["directory|featured"]["include"] == ["f"]
    assert by_purpose["directory|featured"]["exclude"] == ["x"]
    h.settle_directory()
    h.type("q")
    h.advance(300)
    search = h.directory_calls()[0].args_data
    assert search["include"] == ["a", "b"] and search["exclude"] == ["x"]
    assert all(isinstance(c, Call) for c in h.directory_calls())
