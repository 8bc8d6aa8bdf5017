"""Signing in with a passkey from Connect (issue 43 §3), as the engine sees it: Connect draws
"Sign in with a passkey" as a frame of the engine's origin under the email field (only where
email sign-in is offered, nobody is signed in and the legal gate is open), and the passkey route's
`PasskeySignedIn` signs the session in exactly as an accepted code does: the same account, the
same events to the host (one account event). Anywhere else it changes nothing."""

from __future__ import annotations

from typing import Any

from modalcore.enginetest import Harness
from modalcore.flows.embedded import passkey_signin
from modalcore.services.domain.handles import EMAIL_CODE
from modalcore.slices.embedded import CodeCheckResult, EmailCodeChecked, PasskeySignedIn
from modalcore.views.connect import PASSKEY_PATH, SIGN_IN_WITH_A_PASSKEY

from .world import offer_email

ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
EMAIL = "pia@example.com"
NETWORKS = {"networks": ["eip155:31337"]}


def session(**options: Any) -> Harness:
    return offer_email(Harness(is_open=True, options={**NETWORKS, **options}))


def host_events(frames: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(f["kind"], f["data"]) for f in frames if f["t"] == "host_event"]


def test_connect_draws_the_passkey_frame_under_the_email_field() -> None:
    h = session()
    method = h.node("connect/email-method")
    assert [c.id for c in method.c] == ["connect/email", "connect/email/continue", "connect/passkey"]
    frame = h.node("connect/passkey")
    assert frame.t == "frame" and frame.p["title"] == SIGN_IN_WITH_A_PASSKEY
    assert frame.p["src"] == f"{PASSKEY_PATH}?session={h.model.session_id}"


def test_no_passkey_frame_without_email_sign_in_or_behind_the_legal_gate() -> None:
    """Rule: the frame is an action the host page cannot disable; it is drawn only where the
    visitor may sign in (the legal checkbox gates every method, behaviour.md §1)."""
    assert Harness(is_open=True, options=NETWORKS).find("connect/passkey") is None  # no SMTP: no email
    assert session(features={"email": False}).find("connect/passkey") is None
    gated = session(termsConditionsUrl="https://dapp.example/terms", features={"legalCheckbox": True})
    assert gated.find("connect/passkey") is None
    gated.intent("connect/legal", "toggle", {"checked": True})
    assert gated.find("connect/passkey") is not None


def test_a_passkey_sign_in_from_connect_is_exactly_an_accepted_code() -> None:
    """The same account and the same host events as the code: one account event, connected."""
    by_code = session()
    by_code.intent("connect/email", "submit", {"value": EMAIL})
    by_code.settle_call(EMAIL_CODE, {"status": "sent"})
    assert by_code.view == "EmailVerifyOtp"
    code_frames = by_code.deliver(EmailCodeChecked(email=EMAIL, result=CodeCheckResult(
        verdict="accepted", attempts_left=5, address=ADDRESS)))

    by_passkey = session()
    assert by_passkey.view == "Connect" and by_passkey.model.embedded.email == ""
    passkey_frames = by_passkey.deliver(PasskeySignedIn(email=EMAIL, address=ADDRESS))
    assert host_events(passkey_frames) == host_events(code_frames)
    accounts = [data for kind, data in host_events(passkey_frames) if kind == "account"]
    assert len(accounts) == 1 and accounts[0]["isConnected"] is True and accounts[0]["address"] == ADDRESS
    for h in (by_code, by_passkey):
        assert h.model.embedded.identity == f"email:{EMAIL}" and h.model.embedded.user_email == EMAIL
        assert h.model.accounts.get("eip155").address == ADDRESS
    assert by_passkey.find("connect/passkey") is None


def test_a_passkey_sign_in_anywhere_else_changes_nothing() -> None:
    # another view than Connect or the code view
    h = session()
    h.press("connect/all-wallets")
    before = h.model
    assert not host_events(h.deliver(PasskeySignedIn(email=EMAIL, address=ADDRESS)))
    assert h.model.embedded == before.embedded and h.model.accounts == before.accounts
    # the code view of another email
    other = session()
    other.intent("connect/email", "submit", {"value": "bob@example.com"})
    other.settle_call(EMAIL_CODE, {"status": "sent"})
    assert not host_events(other.deliver(PasskeySignedIn(email=EMAIL, address=ADDRESS)))
    assert other.model.embedded.identity == ""
    # already signed in: a second one is not a second account event
    h = session()
    h.deliver(PasskeySignedIn(email=EMAIL, address=ADDRESS))
    assert not [k for k, _ in host_events(h.deliver(PasskeySignedIn(email="eve@example.com", address=ADDRESS)))
                if k == "account"]
    assert h.model.embedded.identity == f"email:{EMAIL}"



def test_only_the_view_shown_may_sign_in_with_any_passkey() -> None:
    """Rule: from Connect any account's passkey; on the code view only the typed email's (Connect
    kept as the hidden view "back" returns to does not count)."""
    h = session()
    assert passkey_signin(h.model) == "any"
    h.intent("connect/email", "submit", {"value": EMAIL})
    h.settle_call(EMAIL_CODE, {"status": "sent"})
    assert h.view == "EmailVerifyOtp" and passkey_signin(h.model) == "email"
    h.press("otp/change-email")
    assert h.view == "Connect" and passkey_signin(h.model) == "any"
    h.deliver(PasskeySignedIn(email=EMAIL, address=ADDRESS))
    assert passkey_signin(h.model) == ""
