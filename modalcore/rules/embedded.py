"""The embedded ("auth") wallet's rules that every layer may read (issue 15).

`AUTH_CONNECTOR_ID` names the embedded wallet's connector: an account connected by email or a
social login carries it as `connector_id` (behaviour.md §5: registering a name needs the auth
connector). Email syntax (behaviour.md §5 "email valid") and the code's shape live here so the Connect
view, the slice and the engine's code service agree on them.
"""

from __future__ import annotations

import re

from .limits import EMAIL_CHARS

AUTH_CONNECTOR_ID = "ID_AUTH"
AUTH_CONNECTOR_NAME = "Email Wallet"
CODE_DIGITS = 6
INVALID_EMAIL = "Invalid email"
SOCIAL_PROVIDERS = ("google", "github", "apple", "facebook", "x", "discord")  # behaviour.md §5 frame payloads
# the statement of every Sign In With Farcaster message (FIP-11): what the visitor is shown in
# their Farcaster client, so the only statement a sign-in signed at once may carry (issue 33)
FARCASTER_STATEMENT = "Farcaster Auth"

_EMAIL = re.compile(r"^[^@\s]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,63}$")
_CODE = re.compile(r"^[0-9]{6}$")


def normalize_email(email: object) -> str | None:
    """The address lower-cased and stripped; None unless it is a valid email."""
    if not isinstance(email, str) or len(email) > EMAIL_CHARS:
        return None
    value = email.strip().lower()
    return value if _EMAIL.match(value) else None


def is_code(text: str) -> bool:
    return bool(_CODE.match(text))


# What the code views say (behaviour.md has no words for these; the rate limit's are in texts.py).
CODE_EXPIRED = "This code has expired. Request a new code"
CODE_LOCKED = "Too many wrong codes. Request a new code"
CODE_SEND_FAILED = "The code could not be sent. Try again"
CODE_CHECK_FAILED = "The code could not be checked. Try again"


def codes_over_budget(seconds: int) -> str:
    """A mail budget is spent (issue 27): the wait in whole minutes, rounded up."""
    minutes = max(1, -(-seconds // 60))
    return f"Too many codes were requested. Please try again in {minutes} minute{'' if minutes == 1 else 's'}"


def wrong_code(attempts_left: int) -> str:
    return f"Wrong code. {attempts_left} attempt{'' if attempts_left == 1 else 's'} left"


def code_sent_to(email: str) -> str:
    return f"A new code was sent to {email}"
