"""Email one-time codes (issue 15, behaviour.md §5 and §9): the policy and its SQLite store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from modalcore.embedded.codes import EmailCodes
from modalcore.embedded.codestore import CodeStore
from modalcore.embedded.otp import (
    CODE_TTL_MS,
    InvalidCodeFormat,
    InvalidEmail,
    RateLimited,
    Verdict,
    code_from_random,
)

KEY = b"k" * 32
EMAIL = "Visitor@Example.com"
T0 = 1_700_000_000_000


def rnd(n: int) -> bytes:
    return n.to_bytes(8, "big")


@pytest.fixture
def codes(tmp_path: Path) -> EmailCodes:
    return EmailCodes(CodeStore(tmp_path / "codes.sqlite"), KEY)


def wrong(code: str) -> str:
    return f"{(int(code) + 1) % 1_000_000:06d}"


def test_code_is_six_digits_from_the_randomness_passed_in() -> None:
    assert code_from_random(rnd(42)) == "000042"
    assert code_from_random(rnd(10**6 + 7)) == "000007"
    assert code_from_random(b"\xff" * 8) == f"{(2**64 - 1) % 10**6:06d}"
    with pytest.raises(ValueError):
        code_from_random(b"\x01")


def test_right_code_is_accepted_once(codes: EmailCodes) -> None:
    email, code = codes.request(EMAIL, T0, rnd(123456))
    assert (email, code) == ("visitor@example.com", "123456")
    assert codes.submit("visitor@example.com", code, T0 + 1000).verdict is Verdict.ACCEPTED
    assert codes.submit(EMAIL, code, T0 + 2000).verdict is Verdict.NO_CODE


def test_code_is_stored_hashed_not_in_clear(tmp_path: Path) -> None:
    path = tmp_path / "codes.sqlite"
    codes = EmailCodes(CodeStore(path), KEY)
    _, code = codes.request(EMAIL, T0, rnd(987654))
    row = sqlite3.connect(path).execute("SELECT digest FROM email_codes").fetchone()
    assert len(row[0]) == 32 and code.encode() not in row[0]
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert b"987654" not in stored


def test_rate_limit_message_is_exact_and_rounded_up(codes: EmailCodes) -> None:
    codes.request(EMAIL, T0, rnd(1))
    with pytest.raises(RateLimited) as first:
        codes.request(EMAIL, T0 + 1, rnd(2))
    assert str(first.value) == "Please try again after 30 seconds"
    with pytest.raises(RateLimited) as later:
        codes.request(EMAIL, T0 + 10_500, rnd(2))
    assert str(later.value) == "Please try again after 20 seconds"
    with pytest.raises(RateLimited) as last:
        codes.request(EMAIL, T0 + 29_999, rnd(2))
    assert str(last.value) == "Please try again after 1 seconds"
    # a refused request changed nothing: the first code still works
    assert codes.submit(EMAIL, "000001", T0 + 29_999).verdict is Verdict.ACCEPTED


def test_a_new_code_may_be_requested_after_30_seconds_and_replaces_the_old(
        codes: EmailCodes) -> None:
    codes.request(EMAIL, T0, rnd(111111))
    _, second = codes.request(EMAIL, T0 + 30_000, rnd(222222))
    assert codes.submit(EMAIL, "111111", T0 + 30_001).verdict is Verdict.WRONG
    assert codes.submit(EMAIL, second, T0 + 30_002).verdict is Verdict.ACCEPTED


def test_rate_limit_is_per_email(codes: EmailCodes) -> None:
    codes.request(EMAIL, T0, rnd(1))
    assert codes.request("other@example.com", T0 + 1, rnd(2))[1] == "000002"


def test_five_wrong_codes_lock_the_code(codes: EmailCodes) -> None:
    _, code = codes.request(EMAIL, T0, rnd(555555))
    lefts = [codes.submit(EMAIL, wrong(code), T0 + i).attempts_left for i in range(4)]
    assert lefts == [4, 3, 2, 1]
    fifth = codes.submit(EMAIL, wrong(code), T0 + 5)
    assert (fifth.verdict, fifth.attempts_left) == (Verdict.LOCKED, 0)
    assert codes.submit(EMAIL, code, T0 + 6).verdict is Verdict.LOCKED


def test_four_wrong_codes_still_leave_the_right_one(codes: EmailCodes) -> None:
    _, code = codes.request(EMAIL, T0, rnd(555555))
    for i in range(4):
        codes.submit(EMAIL, wrong(code), T0 + i)
    assert codes.submit(EMAIL, code, T0 + 10).verdict is Verdict.ACCEPTED


def test_code_expires_at_exactly_ten_minutes(codes: EmailCodes) -> None:
    _, code = codes.request(EMAIL, T0, rnd(424242))
    assert codes.submit(EMAIL, code, T0 + CODE_TTL_MS).verdict is Verdict.EXPIRED
    assert CODE_TTL_MS == 600_000


def test_code_is_valid_one_millisecond_before_ten_minutes(codes: EmailCodes) -> None:
    _, code = codes.request(EMAIL, T0, rnd(424242))
    assert codes.submit(EMAIL, code, T0 + CODE_TTL_MS - 1).verdict is Verdict.ACCEPTED


def test_expired_submissions_do_not_count_as_attempts(codes: EmailCodes) -> None:
    _, code = codes.request(EMAIL, T0, rnd(424242))
    for i in range(6):
        codes.submit(EMAIL, wrong(code), T0 + CODE_TTL_MS + i)
    _, new = codes.request(EMAIL, T0 + CODE_TTL_MS + 10, rnd(7))
    assert codes.submit(EMAIL, new, T0 + CODE_TTL_MS + 11).verdict is Verdict.ACCEPTED


@pytest.mark.parametrize("bad", [123456, None, "12345", "1234567", "12a456", ""])
def test_malformed_code_is_a_typed_error_and_uses_no_attempt(codes: EmailCodes, bad: object) -> None:
    _, code = codes.request(EMAIL, T0, rnd(333333))
    for _ in range(6):
        with pytest.raises(InvalidCodeFormat):
            codes.submit(EMAIL, bad, T0 + 1)
    assert codes.submit(EMAIL, code, T0 + 2).verdict is Verdict.ACCEPTED


@pytest.mark.parametrize("bad", ["", "no-at-sign", "a@b", "a b@example.com", 7, None])
def test_invalid_email_is_a_typed_error_and_stores_nothing(tmp_path: Path, bad: object) -> None:
    store = CodeStore(tmp_path / "c.sqlite")
    with pytest.raises(InvalidEmail):
        EmailCodes(store, KEY).request(bad, T0, rnd(1))
    row = store._db.execute("SELECT count(*) FROM email_codes").fetchone()
    assert row is not None and row[0] == 0


def test_compare_uses_constant_time_digest_comparison(monkeypatch: pytest.MonkeyPatch,
                                                     codes: EmailCodes) -> None:
    import hmac as hmac_module

    calls: list[tuple[bytes, bytes]] = []
    real = hmac_module.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr("modalcore.embedded.otp.hmac.compare_digest", spy)
    _, code = codes.request(EMAIL, T0, rnd(1))
    codes.submit(EMAIL, code, T0 + 1)
    assert len(calls) == 1 and len(calls[0][0]) == 32


def test_store_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "codes.sqlite"
    _, code = EmailCodes(CodeStore(path), KEY).request(EMAIL, T0, rnd(5))
    assert EmailCodes(CodeStore(path), KEY).submit(EMAIL, code, T0 + 1).verdict is Verdict.ACCEPTED


def test_a_withdrawn_code_frees_the_window_and_the_earlier_code_is_back(codes: EmailCodes) -> None:
    """A code whose mail was not sent is withdrawn: the row is what it was before (no 30 s
    window from it; the earlier sent code still works), and a newer code is never undone."""
    first = codes.issue(EMAIL, T0, rnd(111111))
    failed = codes.issue(EMAIL, T0 + 30_000, rnd(222222))
    assert codes.withdraw(failed) is True
    again = codes.issue(EMAIL, T0 + 30_001, rnd(333333))  # no RateLimited
    assert codes.withdraw(failed) is False  # the newer code stays
    assert codes.submit(EMAIL, again.code, T0 + 30_002).verdict is Verdict.ACCEPTED
    assert codes.withdraw(first) is False
    nothing = codes.issue("new@example.com", T0, rnd(444444))
    assert codes.withdraw(nothing) is True
    assert codes.submit("new@example.com", nothing.code, T0 + 1).verdict is Verdict.NO_CODE
    codes.issue("new@example.com", T0 + 1, rnd(5))  # no window left behind
