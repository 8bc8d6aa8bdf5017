"""Email sign-in through a session (issue 15 §1; behaviour.md §1 connect-method order, §5 'Please try
again after {n} seconds'): the Connect view's email field, the code mailed over real SMTP and
read back from the local server, EmailVerifyOtp, and the visitor connected with the embedded
("auth") connector; the real code store and key vault answer every call."""

from __future__ import annotations

from typing import Any

from pathlib import Path

import pytest

from modalcore.core.cmds import Call
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.embedded.devicekeys import parse_public_key
from modalcore.embedded.keys import Identity
from modalcore.embedded.service import EmbeddedWallet
from modalcore.enginetest import METAMASK, Harness
from modalcore.rules.embedded import AUTH_CONNECTOR_ID
from modalcore.views.connect import methods

from .world import EmailWorld, offer_email, open_wallet

EMAIL = "Alice@Example.com"


@pytest.fixture
def world(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> EmailWorld:
    return EmailWorld(wallet, smtp)


def _embedded_calls(h: Harness) -> list[Call[Any]]:
    return [c for c in h.cmds if isinstance(c, Call) and c.service.name.startswith("embedded.")]


def _ids(h: Harness) -> list[str]:
    body = h.node("connect/body")
    return [child.id for child in body.c]


# ----- behaviour.md §1: where the email field is


def test_connect_puts_email_first_then_wallets_by_default() -> None:
    h = offer_email(Harness(is_open=True))
    assert methods(h.model) == ["email", "wallet"]
    assert _ids(h)[:3] == ["connect/email-method", "connect/or/wallet", "connect/list"]
    assert h.node("connect/email").p["kind"] == "email"


def test_connect_puts_wallets_first_when_a_wallet_is_installed() -> None:
    h = offer_email(Harness(is_open=True, wallets=[METAMASK]))
    assert methods(h.model) == ["wallet", "email"]
    assert _ids(h)[:3] == ["connect/list", "connect/or/email", "connect/email-method"]


def test_the_hosts_configured_order_wins_and_email_off_hides_the_field() -> None:
    h = offer_email(Harness(is_open=True, wallets=[METAMASK], options={
        "networks": ["eip155:1"], "features": {"connectMethodsOrder": ["email", "wallet"]}}))
    assert methods(h.model) == ["email", "wallet"]
    off = offer_email(Harness(is_open=True, options={"networks": ["eip155:1"], "features": {"email": False}}))
    assert methods(off.model) == ["wallet"]
    assert off.find("connect/email") is None
    # an engine without an SMTP server does not offer email (the default of a new session)
    bare = Harness(is_open=True)
    assert methods(bare.model) == ["wallet"] and bare.find("connect/email") is None


# ----- behaviour.md §5: email valid


@pytest.mark.parametrize("typed", ["", "alice", "alice@", "@example.com", "a b@example.com",
                                   "alice@example", "x" * 65 + "@example.com", "y" * 64 + "@" + ("e" * 62 + ".") * 2 + "e" * 61 + ".com"])
def test_an_invalid_email_shows_the_error_and_asks_nothing(world: EmailWorld, typed: str) -> None:
    before = world.h.model.embedded.email
    world.h.intent("connect/email", "change", {"value": typed})
    assert world.h.intent("connect/email", "submit", {"value": typed}) == "ok"
    assert world.h.node("connect/email").p["error"] == "Invalid email"
    assert not _embedded_calls(world.h)
    assert world.h.model.embedded.email == before and world.h.view == "Connect"
    assert world.smtp.mailbox.all() == []


def test_the_continue_button_submits_the_typed_email(world: EmailWorld) -> None:
    world.h.intent("connect/email", "change", {"value": EMAIL})
    world.h.press("connect/email/continue")
    [call] = _embedded_calls(world.h)
    assert call.service.name == "embedded.email_code" and call.args_data == {"email": "alice@example.com"}


# ----- the code


def test_email_then_the_mailed_code_connects_the_embedded_wallet(world: EmailWorld) -> None:
    world.submit_email(EMAIL)
    assert world.h.view == "EmailVerifyOtp"
    assert world.h.node("otp/email").p["text"] == "alice@example.com"
    [mail] = world.smtp.mailbox.to("alice@example.com")
    code = world.code_for("alice@example.com")
    assert code not in str(world.h.model)  # the session never holds the code
    world.type_code(code)
    account = world.h.model.accounts.get("eip155")
    assert account.status == "connected"
    assert account.connector_id == AUTH_CONNECTOR_ID
    assert account.user_email == "alice@example.com"
    assert account.address == world.wallet.vault.address_of(Identity("email", "alice@example.com"))
    assert world.h.model.embedded.identity == "email:alice@example.com"
    assert world.h.history == ["Account"]


def test_the_code_is_typed_in_the_engine_origin_frame_never_in_the_host_tree(world: EmailWorld) -> None:
    """Issue 27: the host page's tree has no code field (a host intent carrying a code is
    refused); the view draws the engine's sign-in frame, whose route checks the code."""
    world.submit_email(EMAIL)
    code = world.code_for("alice@example.com")
    assert world.h.node("otp/frame").p["src"] == "/embedded/signin?session=session-1"
    assert world.h.intent("otp/code", "change", {"value": code}) != "ok"
    assert not _embedded_calls(world.h) and world.h.model.accounts.get("eip155").status == "disconnected"
    world.type_code(code)
    assert world.h.model.accounts.get("eip155").connector_id == AUTH_CONNECTOR_ID
    assert world.wallet.devices.public_key("email:alice@example.com", _key_id(world)) is not None


def test_the_same_email_later_gets_the_same_address(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    first = EmailWorld(wallet, smtp).sign_in(EMAIL)
    again = EmailWorld(wallet, smtp, now=EmailWorld(wallet, smtp).h.now + 60_000).sign_in("alice@example.com")
    other = EmailWorld(wallet, smtp).sign_in("bob@example.com")
    assert first == again != other


def test_a_wrong_code_says_how_many_attempts_are_left(world: EmailWorld) -> None:
    world.submit_email(EMAIL)
    code = world.code_for("alice@example.com")
    wrong = "000000" if code != "000000" else "111111"
    world.type_code(wrong)
    assert world.h.node("otp/error").p["text"] == "Wrong code. 4 attempts left"
    assert world.h.model.accounts.get("eip155").status == "disconnected"
    assert world.h.view == "EmailVerifyOtp"


def test_five_wrong_codes_lock_the_code_and_the_right_one_is_then_refused(world: EmailWorld) -> None:
    world.submit_email(EMAIL)
    code = world.code_for("alice@example.com")
    wrong = "000000" if code != "000000" else "111111"
    for _ in range(5):
        world.type_code(wrong)
    assert world.h.node("otp/error").p["text"] == "Too many wrong codes. Request a new code"
    world.type_code(code)
    assert world.h.node("otp/error").p["text"] == "Too many wrong codes. Request a new code"
    assert world.h.model.accounts.get("eip155").status == "disconnected"
    assert world.wallet.vault.address_of(Identity("email", "alice@example.com")) is None
    assert world.wallet.devices.public_key("email:alice@example.com", _key_id(world)) is None


def test_a_code_ten_minutes_old_is_expired(world: EmailWorld) -> None:
    world.submit_email(EMAIL)
    code = world.code_for("alice@example.com")
    world.h.now += 600_000
    world.type_code(code)
    assert world.h.node("otp/error").p["text"] == "This code has expired. Request a new code"
    assert world.h.model.accounts.get("eip155").status == "disconnected"


@pytest.mark.parametrize(("after_ms", "seconds"), [(1, 30), (10_500, 20), (29_999, 1)])
def test_resend_within_30_s_says_the_exact_wait(world: EmailWorld, after_ms: int, seconds: int) -> None:
    world.submit_email(EMAIL)
    world.h.now += after_ms
    world.h.press("otp/resend")
    world.run_calls()
    assert world.h.node("otp/notice").p["text"] == f"Please try again after {seconds} seconds"
    assert len(world.smtp.mailbox.to("alice@example.com")) == 1


def test_resend_after_30_s_mails_a_new_code_and_the_old_one_stops_working(world: EmailWorld) -> None:
    world.submit_email(EMAIL)
    old = world.code_for("alice@example.com")
    world.h.now += 30_000
    world.h.press("otp/resend")
    world.run_calls()
    assert world.h.node("otp/notice").p["text"] == "A new code was sent to alice@example.com"
    assert len(world.smtp.mailbox.to("alice@example.com")) == 2
    new = world.code_for("alice@example.com")
    if old != new:
        world.type_code(old)
        assert world.h.model.accounts.get("eip155").status == "disconnected"
    world.type_code(new)
    assert world.h.model.accounts.get("eip155").status == "connected"


def test_the_rate_limit_on_connect_shows_under_the_email_field(world: EmailWorld) -> None:
    world.submit_email(EMAIL)
    world.h.press("otp/change-email")
    assert world.h.view == "Connect"
    assert world.h.node("connect/email").p["value"] == EMAIL
    world.h.now += 10_500
    world.submit_email(EMAIL)
    assert world.h.node("connect/email").p["error"] == "Please try again after 20 seconds"
    assert world.h.view == "Connect"


def test_change_email_goes_back_to_connect_and_another_email_gets_its_own_code(world: EmailWorld) -> None:
    world.submit_email(EMAIL)
    world.h.press("otp/change-email")
    world.submit_email("carol@example.com")
    assert world.h.view == "EmailVerifyOtp"
    assert world.h.node("otp/email").p["text"] == "carol@example.com"
    world.type_code(world.code_for("carol@example.com"))
    assert world.h.model.accounts.get("eip155").user_email == "carol@example.com"


def test_a_mail_server_that_is_down_says_so_and_connects_nothing(
        tmp_path: Path, smtp: LocalSmtpServer) -> None:
    wallet = open_wallet(tmp_path / "e.db", smtp)
    smtp.stop()
    world = EmailWorld(wallet, smtp)
    world.submit_email(EMAIL)
    assert world.h.node("connect/email").p["error"] == "The code could not be sent. Try again"
    assert world.h.view == "Connect"


def test_a_failed_send_does_not_use_up_the_30_s_window_and_a_sent_code_does(
        tmp_path: Path, smtp: LocalSmtpServer) -> None:
    """behaviour.md §5's one code per 30 s counts sent codes: with the real SMTP server stopped the
    visitor reads the error and asks again at once (no 'Please try again after'); the code that
    is then sent starts the window."""
    wallet = open_wallet(tmp_path / "e.db", smtp)
    smtp.stop()
    world = EmailWorld(wallet, smtp)
    world.submit_email(EMAIL)
    assert world.h.node("connect/email").p["error"] == "The code could not be sent. Try again"
    smtp.start()  # the same port again
    world.h.now += 1
    world.submit_email(EMAIL)
    assert world.h.view == "EmailVerifyOtp"
    assert len(smtp.mailbox.to("alice@example.com")) == 1
    world.h.now += 1
    world.h.press("otp/resend")
    world.run_calls()
    assert world.h.node("otp/notice").p["text"] == "Please try again after 30 seconds"
    world.type_code(world.code_for("alice@example.com"))
    assert world.h.model.accounts.get("eip155").status == "connected"


def test_a_refused_resend_says_so_and_the_next_resend_is_sent_at_once(
        world: EmailWorld, smtp: LocalSmtpServer) -> None:
    """The server answers 554 to the resent code: the notice says it was not sent, the earlier
    code still works until a new one is sent, and the next resend (no 30 s wait) mails one."""
    world.submit_email(EMAIL)
    first = world.code_for("alice@example.com")
    world.h.now += 30_000
    smtp.mailbox.refusing = True
    world.h.press("otp/resend")
    world.run_calls()
    assert world.h.node("otp/notice").p["text"] == "The code could not be sent. Try again"
    smtp.mailbox.refusing = False
    world.h.now += 1
    world.h.press("otp/resend")
    world.run_calls()
    assert world.h.node("otp/notice").p["text"] == "A new code was sent to alice@example.com"
    assert len(smtp.mailbox.to("alice@example.com")) == 2
    second = world.code_for("alice@example.com")
    if second != first:
        world.type_code(first)
        assert world.h.model.accounts.get("eip155").status == "disconnected"
    world.type_code(second)
    assert world.h.model.accounts.get("eip155").status == "connected"


def test_a_reload_keeps_the_visitor_signed_in_without_a_new_code(world: EmailWorld) -> None:
    address = world.sign_in(EMAIL)
    world.h.rejoin(last=None)
    account = world.h.model.accounts.get("eip155")
    assert account.status == "connected" and account.address == address
    assert not world.h.pending_effects()
    assert len(world.smtp.mailbox.to("alice@example.com")) == 1


def test_disconnect_forgets_the_email_sign_in(world: EmailWorld) -> None:
    world.sign_in(EMAIL)
    world.h.host("open")
    world.h.press("account/disconnect")
    assert world.h.model.accounts.get("eip155").status == "disconnected"
    assert world.h.model.embedded.identity == ""
    assert not world.h.pending_effects()


def _key_id(world: EmailWorld) -> str:
    return parse_public_key(world.device.spki)[0]
