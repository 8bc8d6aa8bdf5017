"""The render memo (views/__init__.py `BodyCache`, one per session) never returns a stale body."""

from __future__ import annotations

from collections.abc import Callable

from modalcore.enginetest import Harness
from modalcore.views import VIEW_MODULES, BodyCache

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
