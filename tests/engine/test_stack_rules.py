"""behaviour.md §2 "Stack rules": the view stack."""

from __future__ import annotations

from dataclasses import replace

from modalcore.engine.update import update
from modalcore.enginetest import Harness, build_model, connected_accounts, with_history
from modalcore.slices import router
from modalcore.slices.navigation import PressedBack, PressedNavigate


def test_push_of_the_top_view_is_a_no_op() -> None:
    model = with_history(build_model(), "Connect", "AllWallets")
    after, cmds = update(model, PressedNavigate("AllWallets"), 0)
    assert [r.view for r in after.router.history] == ["Connect", "AllWallets"]
    assert after.router == model.router and cmds == []


def test_push_adds_an_entry_on_top(opened: Harness) -> None:
    opened.press("connect/all-wallets")
    assert opened.history == ["Connect", "AllWallets"]
    assert opened.node("view/AllWallets").p["name"] == "AllWallets"


def test_reset_sets_a_one_entry_history() -> None:
    state = router.RouterState(history=(router.Route("Connect"), router.Route("AllWallets")))
    assert router.reset(state, "Account").history == (router.Route("Account"),)
    # opening resets: whatever was stacked before, the modal opens on one view
    h = Harness(with_history(build_model(accounts=connected_accounts()), "Connect", "AllWallets", "WhatIsAWallet"))
    assert h.host("open", view="Account") == "ok"
    assert h.history == ["Account"]


def test_replace_swaps_the_top_entry_unless_same() -> None:
    state = router.RouterState(history=(router.Route("Connect"), router.Route("AllWallets")))
    swapped = router.replace_top(state, "ConnectingExternal", "io.metamask")
    assert swapped.history == (router.Route("Connect"), router.Route("ConnectingExternal", "io.metamask"))
    same = router.replace_top(state, "AllWallets", "other-param")
    assert same is state


def test_go_back_pops_one_entry(opened: Harness) -> None:
    opened.press("connect/all-wallets")
    opened.press("header/back")
    assert opened.history == ["Connect"]
    assert opened.model.modal.open
    assert opened.find("header/back") is None  # one entry: no back button


def test_go_back_with_one_entry_closes_modal() -> None:
    model = replace(build_model(), modal=replace(build_model().modal, open=True))
    after, _ = update(model, PressedBack(), 0)
    assert after.modal.open is False
    assert [r.view for r in after.router.history] == ["Connect"]


def test_go_back_with_unsupported_chain_in_history_closes_modal() -> None:
    base = build_model()
    model = replace(with_history(base, "Account", "UnsupportedChain", "Networks"),
                    modal=replace(base.modal, open=True))
    after, _ = update(model, PressedBack(), 0)
    assert after.modal.open is False
    assert [r.view for r in after.router.history] == ["Account", "UnsupportedChain", "Networks"]


def test_navigating_to_an_unknown_view_does_nothing() -> None:
    model = build_model()
    after, cmds = update(model, PressedNavigate("NoSuchView"), 0)
    assert after.router == model.router and cmds == []
