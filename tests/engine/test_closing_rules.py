"""behaviour.md §2 "Opening rules" about closing: embedded mode, ApproveTransaction, sign-in, shake."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from modalcore.enginetest import Harness, build_model, connected_accounts
from modalcore.slices import modal
from modalcore.slices.modal import SHAKE_MS
from modalcore.slices.siwx import SiwxState

Make = Callable[..., Harness]
EMBEDDED = {"networks": ["eip155:1"], "embedded": True}
SIGN_IN_REQUIRED = SiwxState(enabled=True, required=True, has_session=False)


def unclosable(make: Make) -> Harness:
    """A modal that refuses to close: the sign-in view while sign-in is required (behaviour.md §2)."""
    return make(siwx=SIGN_IN_REQUIRED, accounts=connected_accounts(), history=["Account", "SIWXSignMessage"],
                is_open=True)


def test_close_hides_the_modal(opened: Harness) -> None:
    assert opened.host("close") == "ok"
    assert opened.model.modal.open is False
    assert opened.node("modal").p["open"] is False
    assert opened.host_state()["open"] is False


def test_pressing_the_header_close_button_hides_the_modal(opened: Harness) -> None:
    opened.press("header/close")
    assert opened.model.modal.open is False


def test_embedded_close_shows_account_when_connected(make: Make) -> None:
    h = make(options=EMBEDDED, accounts=connected_accounts())
    h.host("open", view="AllWallets")
    assert h.intent("modal", "close") == "ok"
    assert h.view == "Account"
    assert h.model.modal.open is True
    assert h.node("modal").p["embedded"] is True


def test_embedded_close_shows_connect_when_not_connected(make: Make) -> None:
    h = make(options=EMBEDDED)
    h.host("open", view="AllWallets")
    h.host("close")
    assert h.view == "Connect"
    assert h.model.modal.open is True


def test_embedded_close_starts_over_with_a_one_entry_history(make: Make) -> None:
    h = make(options=EMBEDDED, accounts=connected_accounts())
    h.host("open", view="Connect")
    h.press("connect/all-wallets")
    h.host("close")
    assert h.history == ["Account"]
    assert h.find("header/back") is None


def test_embedded_modal_has_no_close_button(make: Make) -> None:
    h = make(options=EMBEDDED)
    h.host("open")
    assert h.find("header/close") is None


def test_approve_transaction_cannot_be_closed_unless_forced() -> None:
    # ApproveTransaction has no view module yet (router.VIEWS): the rule is checked on the model
    model = build_model(history=["Account", "ApproveTransaction"], is_open=True)
    assert modal.closing_allowed(model) is False
    refused, _ = modal.close(model)
    assert refused.modal.open is True and refused.modal.shake == 1
    forced, _ = modal.close(model, force=True)
    assert forced.modal.open is False


def test_refused_close_shakes(make: Make) -> None:
    h = unclosable(make)
    assert h.node("modal").p["shake"] == 0
    h.intent("modal", "close")
    assert h.node("modal").p["shake"] == 1
    assert h.model.modal.shaking is True
    h.host("close")
    assert h.node("modal").p["shake"] == 2


def test_refused_close_has_no_pending_close_hint(make: Make) -> None:
    h = unclosable(make)
    assert h.node("modal").p["on"] == {"close": None}
    h.host("open", view="Connect")
    assert h.node("modal").p["on"] == {"close": "close"}


def test_closing_disabled_in_the_sign_view_when_sign_in_required_without_session(make: Make) -> None:
    h = make(siwx=SIGN_IN_REQUIRED, accounts=connected_accounts(), history=["SIWXSignMessage"], is_open=True)
    h.host("close")
    assert h.model.modal.open is True
    assert h.node("modal").p["closable"] is False
    assert h.model.modal.shake == 1


@pytest.mark.parametrize("view", ["SIWXSignMessage", "ConnectingSiwe", "ApproveTransaction"])
def test_closing_disabled_in_sign_and_approve_views_when_sign_in_required_without_session(view: str) -> None:
    model = build_model(siwx=SIGN_IN_REQUIRED, accounts=connected_accounts(), history=[view], is_open=True)
    assert modal.closing_allowed(model) is False
    assert modal.close(model)[0].modal.open is True


def test_connecting_siwe_closes_once_a_session_exists() -> None:
    model = build_model(siwx=SiwxState(enabled=True, required=True, has_session=True),
                        accounts=connected_accounts(), history=["ConnectingSiwe"], is_open=True)
    assert modal.closing_allowed(model) is True


def test_closing_allowed_in_sign_view_once_a_session_exists(make: Make) -> None:
    h = make(siwx=SiwxState(enabled=True, required=True, has_session=True), accounts=connected_accounts(),
             history=["SIWXSignMessage"], is_open=True)
    assert h.node("modal").p["closable"] is True
    h.host("close")
    assert h.model.modal.open is False


def test_closing_allowed_in_sign_view_when_sign_in_is_optional(make: Make) -> None:
    h = make(siwx=SiwxState(enabled=True, required=False, has_session=False),
             history=["SIWXSignMessage"], is_open=True)
    h.host("close")
    assert h.model.modal.open is False


def test_closing_allowed_in_other_views_when_sign_in_required(make: Make) -> None:
    h = make(siwx=SIGN_IN_REQUIRED)
    h.host("open", view="AllWallets")
    h.host("close")
    assert h.model.modal.open is False


def test_shake_lasts_500_ms(make: Make) -> None:
    h = unclosable(make)
    h.host("close")
    assert SHAKE_MS == 500
    assert h.timer_due("shake") == h.now + 500
    h.advance(499)
    assert h.model.modal.shaking is True
    h.advance(1)
    assert h.model.modal.shaking is False
    assert h.timer_due("shake") is None
    assert h.model.modal.shake == 1  # the counter stays: the renderer plays each increment once


def test_a_second_refused_close_restarts_the_shake(make: Make) -> None:
    h = unclosable(make)
    h.host("close")
    h.advance(300)
    h.host("close")
    h.advance(300)
    assert h.model.modal.shaking is True
    h.advance(200)
    assert h.model.modal.shaking is False


def test_a_close_button_that_cannot_close_is_drawn_disabled(make: Make) -> None:
    """The × on a required sign-in looked pressable and only shook the card: it is drawn
    disabled, with no local 'close' hint; a press that arrives anyway still shakes."""
    h = unclosable(make)
    close = h.node("header/close")
    assert close.p.get("disabled") is True
    assert (close.p.get("on") or {}).get("press") is None


def test_a_close_button_that_can_close_is_enabled(opened: Harness) -> None:
    assert opened.node("header/close").p.get("disabled") is None
