"""Email one-time codes as a pure policy (behaviour.md §5, §9): no clock, no randomness, no I/O.

A code is 6 digits made from random bytes the caller passes in. Only an HMAC-SHA256 of the
code (keyed by a server secret, bound to the email) is kept. A code expires 10 minutes after it
was issued (at exactly 10 minutes it is expired), allows 5 wrong submissions and is then locked,
is used once, and is compared with `hmac.compare_digest`. An email may ask for a code once per
30 s; earlier requests get behaviour.md §5's 'Please try again after {n} seconds', n rounded up.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass, replace
from enum import Enum

from ..rules import embedded as rules
from ..rules.texts import email_code_rate_limited

CODE_DIGITS = 6
CODE_TTL_MS = 10 * 60 * 1000
MAX_ATTEMPTS = 5
REQUEST_INTERVAL_MS = 30 * 1000
RANDOM_BYTES = 8  # 2**64 values reduced mod 10**6: bias below 1e-13

_CODE = re.compile(r"^[0-9]{6}$")


class OtpError(ValueError):
    """Bad input to the code policy; nothing was changed."""


class InvalidEmail(OtpError):
    def __init__(self) -> None:
        super().__init__(rules.INVALID_EMAIL)


class InvalidCodeFormat(OtpError):
    def __init__(self) -> None:
        super().__init__("The code is 6 digits")


class RateLimited(OtpError):
    """A code was requested for this email less than 30 s ago."""

    def __init__(self, seconds: int) -> None:
        self.seconds = seconds
        super().__init__(email_code_rate_limited(seconds))


def normalize_email(email: object) -> str:
    value = rules.normalize_email(email)
    if value is None:
        raise InvalidEmail()
    return value


def code_from_random(random_bytes: bytes) -> str:
    if len(random_bytes) < RANDOM_BYTES:
        raise ValueError(f"need at least {RANDOM_BYTES} random bytes")
    number = int.from_bytes(random_bytes[:RANDOM_BYTES], "big") % 10**CODE_DIGITS
    return f"{number:0{CODE_DIGITS}d}"


def code_digest(server_key: bytes, email: str, code: str) -> bytes:
    return hmac.new(server_key, f"{email}\x00{code}".encode(), hashlib.sha256).digest()


@dataclass(frozen=True)
class CodeRecord:
    """What is stored for an email: the digest of its latest code, never the code."""

    email: str
    digest: bytes
    issued_ms: int
    attempts: int = 0
    used: bool = False


class Verdict(Enum):
    ACCEPTED = "accepted"
    WRONG = "wrong"
    EXPIRED = "expired"
    LOCKED = "locked"
    NO_CODE = "no_code"


@dataclass(frozen=True)
class Verification:
    verdict: Verdict
    attempts_left: int


def issue(
    previous: CodeRecord | None, email: str, random_bytes: bytes, server_key: bytes, now_ms: int
) -> tuple[CodeRecord, str]:
    """A new code for `email` (already normalized), or RateLimited within 30 s of the last one."""
    if previous is not None:
        elapsed = now_ms - previous.issued_ms
        if 0 <= elapsed < REQUEST_INTERVAL_MS:
            remaining_ms = REQUEST_INTERVAL_MS - elapsed
            raise RateLimited(-(-remaining_ms // 1000))
    code = code_from_random(random_bytes)
    return CodeRecord(email, code_digest(server_key, email, code), now_ms), code


def is_expired(record: CodeRecord, now_ms: int) -> bool:
    return now_ms - record.issued_ms >= CODE_TTL_MS


def verify(
    record: CodeRecord | None, email: str, submitted: object, server_key: bytes, now_ms: int
) -> tuple[Verification, CodeRecord | None]:
    """Check a submitted code; returns the verdict and the record to store (None: unchanged)."""
    if not isinstance(submitted, str):
        raise InvalidCodeFormat()
    submitted = submitted.strip()
    if not _CODE.match(submitted):
        raise InvalidCodeFormat()
    if record is None or record.used:
        return Verification(Verdict.NO_CODE, 0), None
    left = MAX_ATTEMPTS - record.attempts
    if left <= 0:
        return Verification(Verdict.LOCKED, 0), None
    if is_expired(record, now_ms):
        return Verification(Verdict.EXPIRED, left), None
    if hmac.compare_digest(record.digest, code_digest(server_key, email, submitted)):
        return Verification(Verdict.ACCEPTED, left), replace(record, used=True)
    counted = replace(record, attempts=record.attempts + 1)
    left -= 1
    return Verification(Verdict.LOCKED if left == 0 else Verdict.WRONG, left), counted
