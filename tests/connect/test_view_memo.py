"""The render memo (views/__init__.py `BodyCache`, one per session) never returns a stale body."""

from __future__ import annotations

from collections.abc import Callable

from modalcore.core.evolve import replace
from modalcore.core.msg import Msg
from modalcore.enginetest import Harness
from modalcore.slices.model import Model, Step
from modalcore.slices.snack import SnackState
from modalcore.views import VIEW_MODULES, BodyCache, render
from modalcore.wire.nodes import Node

from .conftest import DEV_WALLET, dev_session


def _check(driver: Harness, memos: BodyCache) -> None:
    for name, module in VIEW_MODULES.items():
        if getattr(module, "READS", None) is None:
            continue
        memo = memos.body(name, module, driver.model)
        fresh = module.body(driver.model)
        assert memo.to_wire() == fresh.to_wire(), name


def test_memoised_bodies_equal_fresh_ones_through_a_session() -> None:
    driver = dev_session()
    steps: list[Callable[[], object]] = [
        lambda: driver.intent("host", "open"),
        lambda: driver.intent("connect/all-wallets"),
        lambda: driver.wallet_event("uuid-1", "announce", {"uuid": "u9", "name": "Late Wallet", "icon": "",
                                                 "rdns": "io.late"}),
        lambda: driver.intent("header/back"),
        lambda: driver.intent("host", "set_theme_mode", {"mode": "light"}),
        lambda: driver.intent("connect/wallet/dev.modalcore.devwallet"),
        lambda: driver.answer_last(["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"]),
        lambda: driver.answer_last("0x7a69"),
        lambda: driver.intent("host", "open", {"view": "Connect"}),
    ]
    memos = BodyCache()
    _check(driver, memos)
    for step in steps:
        step()
        _check(driver, memos)
    assert DEV_WALLET.rdns in str(driver.session.tree.to_wire())


def test_each_session_keeps_its_own_memo() -> None:
    """Rule: two interleaved sessions do not evict each other's bodies (a process-wide memo
    missed on every switch): a session's second render of the same model reuses its node."""
    first, second = dev_session(), dev_session()
    first.intent("host", "open")
    second.intent("host", "open")
    first.intent("connect/all-wallets")
    second.intent("connect/all-wallets")
    body = _view_body(first)
    second.intent("header/back")
    second.intent("connect/all-wallets")  # the other session draws the same view in between
    assert first.session.render() == []  # nothing changed for the first one...
    assert _view_body(first) is body  # ...and its body was not drawn again


def _view_body(driver: Harness) -> object:
    view = next(child for child in driver.session.tree.c if child.id == "view/AllWallets")
    return view.c[0]


def _same_drawing(memo: Node, fresh: Node) -> None:
    """The same tree, handlers included (messages equal; functions of the args both present)."""
    assert (memo.id, memo.t, memo.p) == (fresh.id, fresh.t, fresh.p)
    assert memo.handlers.keys() == fresh.handlers.keys(), memo.id
    for action, handler in memo.handlers.items():
        other = fresh.handlers[action]
        if isinstance(handler, Msg):
            assert handler == other, (memo.id, action)
        else:
            assert callable(handler) and callable(other) and not isinstance(other, Msg)
    assert [child.id for child in memo.c] == [child.id for child in fresh.c], memo.id
    for a, b in zip(memo.c, fresh.c):
        _same_drawing(a, b)


def _snack(message: str, open: bool) -> Callable[[Model], Step]:
    return lambda model: (replace(model, snack=SnackState(message=message, variant="error", open=open)), [])


def test_rule_the_memoised_frame_is_redrawn_when_its_inputs_change() -> None:
    """Issue 17: the header, the view wrappers and the snackbar are kept per session and reused
    while their inputs are the same. Rule: after each step the session's tree (drawn with its
    memo) is the tree drawn without any memo: a snack shown or changed, a title that changes, a
    back button that appears, a hidden previous view, all show up at once."""
    driver = dev_session()
    steps: list[Callable[[], object]] = [
        lambda: driver.intent("host", "open"),
        lambda: driver.apply(_snack("First", True)),
        lambda: driver.apply(_snack("Second", True)),  # same node ids, new text
        lambda: driver.intent("connect/all-wallets"),  # title, back button, hidden previous view
        lambda: driver.apply(_snack("Second", False)),
        lambda: driver.intent("header/back"),
        lambda: driver.intent("connect/all-wallets"),
        lambda: driver.intent("host", "close"),
        lambda: driver.intent("host", "open"),
    ]
    for step in steps:
        step()
        _same_drawing(driver.session.tree, render(driver.model))
    snackbar = driver.node("snackbar")
    assert (snackbar.p["message"], snackbar.p["open"]) == ("Second", False)


def test_rule_an_unchanged_frame_is_the_same_node() -> None:
    """What makes the memo pay: pressing nothing that touches the header or the snackbar keeps
    those very nodes, so the diff skips them by identity."""
    driver = dev_session()
    driver.intent("host", "open")
    header, snackbar = driver.node("header"), driver.node("snackbar")
    driver.apply(lambda model: (replace(model, modal=replace(model.modal, shake=model.modal.shake + 1)), []))
    assert driver.node("header") is header and driver.node("snackbar") is snackbar
    driver.apply(_snack("Shown", True))
    assert driver.node("header") is header and driver.node("snackbar") is not snackbar



def test_closing_and_going_back_redraw_no_connect_view() -> None:
    """Rule: the Connect body reads only the legal tick of the modal slice, so closing (which
    replaces that slice; the closed modal keeps drawing Connect, the view opening shows) draws no
    new body; going to All Wallets and back does not redraw the header (the memo keeps the last
    two drawings of each frame part)."""
    driver = dev_session()
    driver.intent("host", "open")
    tree = driver.session.tree
    body, header = tree.find("connect/body"), tree.find("header")
    assert body is not None and header is not None
    driver.intent("host", "close")
    assert driver.session.tree.find("connect/body") is body
    driver.intent("host", "open")
    driver.intent("connect/all-wallets")
    assert driver.session.tree.find("header") is not header  # All Wallets has its own title
    driver.intent("header/back")
    assert driver.session.tree.find("header") is header
