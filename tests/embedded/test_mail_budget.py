"""Mail budgets for sign-in codes (issue 27 item 2): per client address, session, email, project and
engine-wide over sliding windows, and the email's wrong-code guesses over the hour. A request over
a budget is refused with a typed answer and a clear message, no mail is sent, nothing else
changes; behaviour.md §5's 'Please try again after {n} seconds' (30 s per email) still comes first.

Mails are counted where they arrive: the local SMTP server (aiosmtpd)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from modalcore.embedded.budget import (
    HOUR_MS,
    MINUTE_MS,
    BudgetLimits,
    BudgetStore,
    MailBudget,
    OverBudget,
    Receipt,
    Rule,
    address_key,
    refusal,
)
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.durable.sqlite import SqliteDb
from modalcore.embedded.codes import EmailCodes
from modalcore.embedded.codestore import CodeStore
from modalcore.embedded.devicekeys import DeviceKeys
from modalcore.embedded.keys import KeyVault
from modalcore.embedded.masterkey import MasterKey
from modalcore.embedded.service import EmbeddedWallet
from modalcore.embedded.setup import section_of
from modalcore.rules.embedded import codes_over_budget
from modalcore_testing import RunningServer, make_test_config, start_server

from .world import EmailWorld, open_wallet

T0 = 1_700_000_000_000
ADDRESS = "198.51.100.7"


# ----- the pure decision


def test_a_rule_has_room_until_its_limit_within_the_sliding_window() -> None:
    rule = Rule("address:a", 3, MINUTE_MS)
    assert refusal([rule], {"address:a": [T0, T0 + 1_000]}, T0 + 2_000) is None
    refused = refusal([rule], {"address:a": [T0, T0 + 1_000, T0 + 1_500]}, T0 + 2_000)
    # room again when the oldest of the three leaves the minute: 58 s later
    assert refused == OverBudget("address", 58)
    assert refusal([rule], {"address:a": [T0, T0 + 1_000, T0 + 1_500]}, T0 + MINUTE_MS) is None


def test_the_refusal_names_the_budget_that_waits_longest() -> None:
    rules = [Rule("address:a", 1, MINUTE_MS), Rule("engine", 1, HOUR_MS)]
    spent = {"address:a": [T0], "engine": [T0]}
    assert refusal(rules, spent, T0 + 1) == OverBudget("engine", 3600)


def test_ipv6_addresses_share_a_budget_per_slash_64() -> None:
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:198.51.100.7") == address_key(ADDRESS) == ADDRESS


def test_the_budget_is_one_table_every_worker_of_a_host_shares(tmp_path: Path) -> None:
    """Two workers open the same embedded db: what one spent, the other sees."""
    limits = BudgetLimits(address_per_minute=2)
    one, two = (MailBudget(BudgetStore(tmp_path / "embedded.db"), limits) for _ in range(2))
    args = {"address": ADDRESS, "session": "", "project": "p"}
    assert isinstance(one.take_code(T0, email="a@example.com", **args), Receipt)
    assert isinstance(two.take_code(T0, email="b@example.com", **args), Receipt)
    assert one.take_code(T0, email="c@example.com", **args) == OverBudget("address", 60)
    assert two.take_code(T0, email="c@example.com", **args) == OverBudget("address", 60)


def test_the_operator_sets_the_budgets_in_embedded_mail_budget() -> None:
    section = section_of({"embedded": {"mail_budget": {"address_per_minute": 2, "engine_per_hour": 0}}})
    assert section.mail_budget.address_per_minute == 2 and section.mail_budget.engine_per_hour == 0
    assert section_of({}).mail_budget == BudgetLimits()
    assert BudgetLimits().address_per_minute == 5  # the figure: mails allowed per address per minute
    with pytest.raises(ValueError):
        section_of({"embedded": {"mail_budget": {"per_fortnight": 1}}})


# ----- through a session (real services, real SMTP)


def test_one_session_cycling_emails_is_refused_past_its_budget(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    """The attack: one socket, change email → Continue, 40 times. 5 mails, then the message."""
    world = EmailWorld(wallet, smtp)
    limit = BudgetLimits().session_per_hour
    for i in range(40):
        email = f"victim{i}@example.com"
        world.h.advance(1_000)  # a person's pace: the socket's intent rate is not what refuses
        world.submit_email(email)
        if world.h.view == "EmailVerifyOtp":
            assert world.h.intent("otp/change-email", "press") == "ok"
    assert len(smtp.mailbox.all()) == limit
    assert world.h.view == "Connect"
    assert world.h.node("connect/email").p["error"] == codes_over_budget(3600 - 5) == (
        "Too many codes were requested. Please try again in 60 minutes")
    # nothing else changed: the refused emails got no code row (a code for them does not exist)
    assert wallet.codes.submit("victim39@example.com", "000000", T0).verdict.value == "no_code"


def test_a_refused_request_changes_nothing_and_the_30_s_rule_still_speaks_first(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    wallet.budget.limits = BudgetLimits(email_per_hour=1)
    world = EmailWorld(wallet, smtp)
    world.submit_email("alice@example.com")
    code = world.code_for("alice@example.com")
    assert world.h.intent("otp/resend", "press") == "ok"
    world.run_calls()
    assert world.h.node("otp/notice").p["text"] == "Please try again after 30 seconds"  # behaviour.md §5
    world.h.advance(30_000)
    assert world.h.intent("otp/resend", "press") == "ok"
    world.run_calls()
    assert "Too many codes were requested" in world.h.node("otp/notice").p["text"]
    assert len(smtp.mailbox.to("alice@example.com")) == 1
    world.type_code(code)  # the first code still works: the refusal stored nothing over it
    assert world.h.model.accounts.get("eip155").address is not None


def test_wrong_guesses_are_not_renewed_by_new_codes_faster_than_the_hour(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    """5 wrong codes lock a code; a new code 30 s later brings 5 more, and then no more: the
    email's 10 wrong guesses per hour are spent, so no new code is mailed and no code is compared."""
    world = EmailWorld(wallet, smtp)
    email = "bob@example.com"
    world.submit_email(email)
    for round_ in range(3):
        code = world.code_for(email)
        wrong = f"{(int(code) + 1) % 1_000_000:06d}"
        for _ in range(5):
            world.type_code(wrong)
        world.h.advance(30_000)
        mails = len(smtp.mailbox.to(email))
        assert world.h.intent("otp/resend", "press") == "ok"
        world.run_calls()
        if round_ == 1:
            assert len(smtp.mailbox.to(email)) == mails  # refused: guesses spent
            assert "Too many codes were requested" in world.h.node("otp/notice").p["text"]
            break
    # even the right code is not compared while the email has no guesses left
    world.type_code(world.code_for(email))
    assert world.h.model.accounts.get("eip155").address is None
    assert world.h.model.embedded.code_error == "Too many wrong codes. Request a new code"
    world.h.advance(HOUR_MS)  # the hour passed: a new code, new guesses
    assert world.h.intent("otp/resend", "press") == "ok"
    world.run_calls()
    world.type_code(world.code_for(email))
    assert world.h.model.accounts.get("eip155").address is not None


# ----- over real sockets: the attack as measured


@pytest.fixture
def engine(tmp_path: Path, smtp: LocalSmtpServer) -> Iterator[RunningServer]:
    with start_server(make_test_config(), embedded=open_wallet(tmp_path / "embedded.db", smtp)) as running:
        yield running


async def test_sixty_sockets_from_one_address_get_five_mails_a_minute(
        engine: RunningServer, smtp: LocalSmtpServer) -> None:
    """60 sockets from one address ask codes for 60 different emails: 5 mails reach the SMTP
    server (address_per_minute), the other 55 sessions show the refusal and store no code."""
    sessions = []
    async with contextlib.AsyncExitStack() as stack:
        for i in range(60):
            client = await stack.enter_async_context(engine.client())
            await client.join()
            await client.intent("host", "open")
            await client.intent("connect/email", "submit", {"value": f"target{i}@example.com"})
            await client.recv_until(lambda f: f["t"] == "intent_ack" and f["iid"] == "i2")
            sessions.append(client.session)
        engine.wait_for(lambda: all(_settled(engine, s) for s in sessions), timeout=30)
    assert len(smtp.mailbox.all()) == BudgetLimits().address_per_minute == 5
    errors = [engine.hub.runners[s].session.model.embedded.email_error for s in sessions]
    assert errors.count(None) == 5
    assert all(e is not None and e.startswith("Too many codes were requested") for e in errors if e)
    embedded = engine.app.state.embedded
    assert embedded.codes.submit("target59@example.com", "000000", T0).verdict.value == "no_code"


def _settled(engine: RunningServer, session: str) -> bool:
    runner = engine.hub.runners.get(session)
    return runner is not None and not runner.session.model.embedded.requesting


def test_rule_the_sign_in_stores_share_one_database_or_the_wallet_is_refused(tmp_path: Path) -> None:
    """Each step of an email sign-in is one transaction over the codes, the budgets, the keys and
    the device keys (signin_steps.py): a wallet whose stores sit in two databases could charge a
    budget and lose the code row it paid for, so it is never built."""
    one, other = SqliteDb(tmp_path / "one.db"), SqliteDb(tmp_path / "other.db")
    vault = KeyVault(one, MasterKey(bytes(32)))
    codes = EmailCodes(CodeStore(one), b"k" * 32)
    EmbeddedWallet(codes=codes, mailer=None, vault=vault, devices=DeviceKeys(one), budget=MailBudget(BudgetStore(one)))
    with pytest.raises(ValueError, match="share one database"):
        EmbeddedWallet(codes=codes, mailer=None, vault=vault, devices=DeviceKeys(other),
                       budget=MailBudget(BudgetStore(one)))
    one.close()
    other.close()
