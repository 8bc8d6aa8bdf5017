"""Issue 38 item 5: a stranger cannot lock anyone out of email sign-in, and is stopped itself.

The reported attack: from any session, ask a code for the victim's email and type 10+ wrong
codes; the victim, from another address, then got "Too many codes were requested. Please try
again in 60 minutes", renewable every hour. Now a code belongs to the session that asked it
(only that session's typing is compared with it), and wrong guesses count against the session
and the address that type them: the stranger spends its own budgets, the owner's browser asks a
fresh code and signs in. Both sides are driven through sessions (intents, the sign-in frame's
check) against the real code store, budgets and SMTP server."""

from __future__ import annotations

from modalcore.embedded.budget import BudgetLimits
from modalcore.embedded.service import EmbeddedWallet
from modalcore.rules.embedded import CODE_LOCKED
from modalcore_dev.devmail import LocalSmtpServer

from .world import EmailWorld

VICTIM = "victim@example.com"
STRANGER_ADDRESS = "198.51.100.66"
VICTIM_ADDRESS = "203.0.113.5"


def _wrong(code: str) -> str:
    return f"{(int(code) + 1) % 1_000_000:06d}"


def _stranger_spends_its_guesses(stranger: EmailWorld, smtp: LocalSmtpServer) -> int:
    """Codes for the victim's email and wrong codes, until the stranger's session is refused."""
    stranger.submit_email(VICTIM)
    typed = 0
    for _ in range(4):
        code = stranger.code_for(VICTIM)
        for _ in range(5):
            stranger.type_code(_wrong(code))
            typed += 1
        stranger.h.advance(30_000)
        assert stranger.h.intent("otp/resend", "press") == "ok"
        stranger.run_calls()
        if "Too many codes were requested" in stranger.h.node("otp/notice").p["text"]:
            break
    return typed


def test_a_strangers_wrong_codes_leave_the_victim_able_to_sign_in_from_another_address(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    stranger = EmailWorld(wallet, smtp, session="stranger", address=STRANGER_ADDRESS)
    typed = _stranger_spends_its_guesses(stranger, smtp)
    assert typed >= 10
    # the victim, in their own browser (another session, another address), asks a code
    victim = EmailWorld(wallet, smtp, session="victim", address=VICTIM_ADDRESS, now=stranger.h.now)
    mails = len(smtp.mailbox.to(VICTIM))
    victim.submit_email(VICTIM)
    assert victim.h.view == "EmailVerifyOtp"
    assert victim.h.model.embedded.email_error is None
    assert len(smtp.mailbox.to(VICTIM)) == mails + 1
    victim.type_code(victim.code_for(VICTIM))
    assert victim.h.model.accounts.get("eip155").address is not None


def test_the_owners_fresh_code_is_not_locked_by_a_stranger_typing_at_the_same_time(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    """The owner's code waits in their frame while a stranger types wrong codes (and even the
    owner's own code) for the same email: only the owner's session is compared with it."""
    victim = EmailWorld(wallet, smtp, session="victim", address=VICTIM_ADDRESS)
    victim.submit_email(VICTIM)
    owners_code = victim.code_for(VICTIM)
    stranger = EmailWorld(wallet, smtp, session="stranger", address=STRANGER_ADDRESS, now=victim.h.now)
    stranger.submit_email(VICTIM)  # a code of its own: the 30 s rule is per session
    strangers_code = stranger.code_for(VICTIM)
    for _ in range(5):
        stranger.type_code(_wrong(strangers_code))
    stranger.type_code(owners_code)  # a code it could not know: still not the stranger's
    assert stranger.h.model.accounts.get("eip155").address is None
    victim.type_code(owners_code)
    assert victim.h.model.accounts.get("eip155").address is not None


def test_the_stranger_is_stopped_its_guesses_spent_per_session_and_per_address(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    """Wrong codes per session (10 an hour) and per address (30 an hour, whatever the session):
    past them no code is compared, no new code is mailed; the hour frees them."""
    limits = BudgetLimits()
    spent = 0
    sessions = 0
    while True:
        sessions += 1
        world = EmailWorld(wallet, smtp, session=f"stranger-{sessions}", address=STRANGER_ADDRESS,
                           now=1_700_000_000_000 + sessions * 31_000)
        world.submit_email(f"target{sessions}@example.com")
        if world.h.view != "EmailVerifyOtp":  # the address has no guesses left: no code mailed
            assert world.h.node("connect/email").p["error"].startswith("Too many codes were requested")
            break
        code = world.code_for(f"target{sessions}@example.com")
        for _ in range(5):
            world.type_code(_wrong(code))
            if world.h.model.embedded.code_error == CODE_LOCKED and spent >= limits.address_guesses_per_hour:
                break
            spent += 1
        assert sessions < 20
    assert spent == limits.address_guesses_per_hour
    # the same address's next session cannot even have a right code compared
    last = EmailWorld(wallet, smtp, session="stranger-last", address=STRANGER_ADDRESS, now=world.h.now)
    last.submit_email("target1@example.com")
    assert last.h.view == "Connect"
