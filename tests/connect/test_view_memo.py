"""The render memo (views/__init__.py `_BodyCache`) never returns a stale body."""

from __future__ import annotations

from collections.abc import Callable

from modalcore.enginetest import Harness
from modalcore.views import _BODIES, VIEW_MODULES

from .conftest import DEV_WALLET, dev_session


def _check(driver: Harness) -> None:
    for name, module in VIEW_MODULES.items():
        if getattr(module, "READS", None) is None:
            continue
        memo = _BODIES.body(name, module, driver.model)
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
    _check(driver)
    for step in steps:
        step()
        _check(driver)
    assert DEV_WALLET.rdns in str(driver.session.tree.to_wire())
