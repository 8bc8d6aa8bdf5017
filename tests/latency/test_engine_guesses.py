"""What the engine draws so that the renderer can guess locally (sans I/O, through the Harness):
the opening view held while closed, the view "back" returns to held hidden, skeletons at once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from modalcore.enginetest import METAMASK, Harness, connected_accounts
from modalcore.slices import modal as modal_slice
from modalcore.views import VIEW_MODULES
from modalcore.wire.nodes import Node

Make = Callable[..., Harness]
MOBILE = {"mobile": True, "platform": "ios"}


@pytest.fixture
def make() -> Make:
    def build(**kwargs: object) -> Harness:
        kwargs.setdefault("wallets", [METAMASK])
        return Harness(**kwargs)  # type: ignore[arg-type]

    return build


def shown_views(h: Harness) -> list[str]:
    return [n.p["name"] for n in h.tree.c if n.t == "view" and not n.p.get("hidden")]


def hidden_views(h: Harness) -> list[str]:
    return [n.p["name"] for n in h.tree.c if n.t == "view" and n.p.get("hidden")]


def back_hint(h: Harness) -> object:
    return h.node("header/back").p["on"]["press"]


# ----- opening is local


@pytest.mark.parametrize("build,expected", [
    ({}, "Connect"),
    ({"accounts": connected_accounts()}, "Account"),
    ({"env": MOBILE}, "Connect"),
    ({"env": MOBILE, "options": {"networks": ["eip155:1"], "manualWCControl": True}}, "AllWallets"),
    ({"options": {"networks": ["eip155:1"], "manualWCControl": True}}, "ConnectingWalletConnectBasic"),
])
def test_the_closed_modal_holds_the_opening_view(make: Make, build: dict[str, object], expected: str) -> None:
    h = make(**build)
    assert not h.model.modal.open
    assert shown_views(h) == [expected] and h.node("modal").p["view"] == expected
    assert h.find("header/back") is None
    frames = len(h.frames)
    h.host("open")
    assert h.view == expected
    patches = [f for f in h.frames[frames:] if f["t"] == "patch"]
    assert [op for f in patches for op in f["ops"]] == [[3, "modal", {"open": True}]], \
        "opening changes only `open`: the renderer's guess was the whole answer"


def test_the_held_view_follows_the_connection(make: Make) -> None:
    h = make()
    assert shown_views(h) == ["Connect"]
    h.apply(lambda m: (replace(m, accounts=connected_accounts()), []))
    assert shown_views(h) == ["Account"] and modal_slice.opening_view(h.model) == "Account"
    h.apply(lambda m: (replace(m, accounts=type(m.accounts)()), []))
    assert shown_views(h) == ["Connect"]


def test_closing_from_a_deeper_view_holds_the_opening_view_again(make: Make) -> None:
    h = make()
    h.host("open")
    h.press("connect/all-wallets")
    assert shown_views(h) == ["AllWallets"]
    h.press("header/close")
    assert not h.model.modal.open
    assert shown_views(h) == ["Connect"] and hidden_views(h) == []
    assert h.history == ["Connect", "AllWallets"], "the router is unchanged: only the drawing derives"


def test_an_embedded_modal_draws_its_router_view(make: Make) -> None:
    h = make(options={"networks": ["eip155:1"], "embedded": True})
    h.press("connect/all-wallets")
    assert shown_views(h) == ["AllWallets"]


# ----- back is local


def test_the_previous_view_is_held_hidden_and_named_by_the_back_hint(make: Make) -> None:
    h = make()
    h.host("open")
    h.press("connect/all-wallets")
    assert hidden_views(h) == ["Connect"] and shown_views(h) == ["AllWallets"]
    ids = [n.id for n in h.tree.c]
    assert ids.index("view/Connect") == ids.index("view/AllWallets") - 1
    assert h.node("view/Connect").p["title"] == "Connect Wallet"
    assert back_hint(h) == {"back": "view/Connect"}
    held = h.node("view/Connect")
    h.press("header/back")
    assert shown_views(h) == ["Connect"] and hidden_views(h) == []
    assert h.node("view/Connect").c == held.c, "back shows exactly the view the client held"


def test_a_hidden_view_is_not_pressable(make: Make) -> None:
    h = make()
    h.host("open")
    h.press("connect/all-wallets")
    assert h.find("connect/all-wallets") is not None  # in the tree, hidden
    assert h.intent("connect/all-wallets", "press") == "invalid"
    assert h.history == ["Connect", "AllWallets"]


def test_back_that_closes_hints_close(make: Make) -> None:
    h = make(history=["Connect", "UnsupportedChain", "Networks"], is_open=True)
    h.advance(0)
    assert back_hint(h) == "close"
    assert hidden_views(h) == []


def test_no_two_views_share_node_ids() -> None:
    """A hidden view sits next to the current one: their ids must differ (ids are tree-unique)."""
    from modalcore.enginetest import build_model

    for accounts in (None, connected_accounts()):
        model = build_model(wallets=[METAMASK], accounts=accounts, is_open=True)
        seen: dict[str, str] = {}
        for name, module in VIEW_MODULES.items():
            body: Node = module.body(model)
            for n in body.walk():
                assert n.id not in seen or seen[n.id] == name, f"{n.id} is in {seen.get(n.id)} and {name}"
                seen[n.id] = name


# ----- never block on I/O to draw


def skeletons(h: Harness, view: str) -> int:
    return sum(1 for n in h.node(f"view/{view}").walk() if n.t == "skeleton")


def test_all_wallets_draws_at_once(make: Make) -> None:
    h = make()
    h.host("open")
    h.press("connect/all-wallets")  # the directory's pages are commands, not awaited
    view = h.node("view/AllWallets")
    assert skeletons(h, "AllWallets") > 0 or any(n.t == "wallet-item" for n in view.walk())


def test_account_draws_balance_and_activity_skeletons_at_once(make: Make) -> None:
    h = make(accounts=connected_accounts())
    h.host("open")
    assert h.node("account/balance").t == "skeleton"
    assert h.intent("account/tabs", "select", {"value": "2"}) == "ok"
    assert any(n.t == "skeleton" for n in h.node("account/activity").walk())
