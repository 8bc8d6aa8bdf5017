"""behaviour.md §4 "Snack" and §3 snack message: re-show after 150 ms, hide resets, loading stays."""

from __future__ import annotations

from modalcore.enginetest import Harness
from modalcore.slices import snack
from modalcore.slices.snack import AUTO_CLOSE_MS, RESHOW_DELAY_MS, SnackState


def bar(h: Harness) -> tuple[str, str, bool]:
    props = h.node("snackbar").p
    return props["message"], props["variant"], props["open"]


def test_snack_shows_a_message(opened: Harness) -> None:
    opened.apply(lambda m: snack.show(m, "Address copied"))
    assert bar(opened) == ("Address copied", "success", True)


def test_snack_showing_while_open_closes_then_shows_the_new_message_after_150_ms(opened: Harness) -> None:
    assert RESHOW_DELAY_MS == 150
    opened.apply(lambda m: snack.show(m, "First"))
    opened.apply(lambda m: snack.show_error(m, "Second"))
    assert opened.model.snack.open is False
    assert opened.node("snackbar").p["open"] is False
    opened.advance(149)
    assert opened.model.snack.open is False
    opened.advance(1)
    assert bar(opened) == ("Second", "error", True)


def test_snack_hide_resets_to_defaults(opened: Harness) -> None:
    opened.apply(lambda m: snack.show_loading(m, "Authenticating..."))
    opened.apply(snack.hide)
    assert opened.model.snack == SnackState()
    assert opened.model.snack.variant == "success" and opened.model.snack.auto_close is True
    assert bar(opened) == ("", "success", False)


def test_snack_hide_cancels_a_pending_reshow(opened: Harness) -> None:
    opened.apply(lambda m: snack.show(m, "First"))
    opened.apply(lambda m: snack.show(m, "Second"))
    opened.apply(snack.hide)
    opened.advance(1_000)
    assert opened.model.snack == SnackState()


def test_loading_snack_does_not_auto_close(opened: Harness) -> None:
    opened.apply(lambda m: snack.show_loading(m, "Authenticating..."))
    assert opened.model.snack.auto_close is False
    opened.advance(10 * AUTO_CLOSE_MS)
    assert bar(opened) == ("Authenticating...", "loading", True)


def test_loading_snack_shown_over_another_does_not_auto_close(opened: Harness) -> None:
    opened.apply(lambda m: snack.show(m, "Copied"))
    opened.apply(lambda m: snack.show_loading(m, "Authenticating..."))
    opened.advance(10 * AUTO_CLOSE_MS)
    assert bar(opened) == ("Authenticating...", "loading", True)


def test_success_snack_auto_closes(opened: Harness) -> None:
    opened.apply(lambda m: snack.show(m, "Copied"))
    opened.advance(AUTO_CLOSE_MS - 1)
    assert opened.model.snack.open is True
    opened.advance(1)
    assert opened.model.snack == SnackState()


def test_pressing_the_snackbar_hides_it(opened: Harness) -> None:
    opened.apply(lambda m: snack.show_error(m, "Signature declined"))
    opened.press("snackbar")
    assert opened.model.snack == SnackState()
