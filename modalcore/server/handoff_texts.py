"""The words of continue on your phone's pages (issue 44 item 1): the phone's page and its answers
(handoff.py) and the computer's confirmation frame (handoff_confirm.py), in the session's
language, as the modal around them draws it (`i18n.resolve` of the host's `locale` and the
browser's languages). English here; the catalogues (modalcore/i18n/locales) translate them:
`python -m modalcore i18n extract` reads these constants (i18n/extract.py, `SHOWN_PAGES`).

The approval's own rows on the phone are the approval tree's (embedded/approval_tree.py), as the
approval frame draws them: their bytes are what the phone's Approve signs, so they are not
translated here.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from ..i18n import ENGLISH, resolve
from ..i18n.catalog import catalogue

if TYPE_CHECKING:
    from ..slices.model import Model

TITLE = "Continue on your phone"
CONNECTING = "Connecting…"
CHECK_CODE = "Check that your computer shows this code, and confirm there."
CONNECTED = "Connected. Continue on your computer; approvals will show here."
APPROVED = "Approved. Your computer shows the result."
REJECTED = "Rejected."
NOT_WAITING = "This request is no longer waiting"
NO_KEY = "This browser cannot hold a key"
APPROVE = "Approve"
REJECT = "Reject"
UNKNOWN_LINK = "This link is not valid."
EXPIRED_LINK = "This link expired. Make a new one on your computer."
USED_LINK = "This link was already used."
FOREIGN_LINK = "This link is not valid here."
# the other way round: on a phone, continue on a computer (the computer's pages, handoff_code.py)
COMPUTER_TITLE = "Continue on your computer"
TYPE_CODE = "Type the code your phone shows"
CONTINUE = "Continue"
WRONG_CODE = "This code is not valid."
TOO_MANY_CODES = "Too many wrong codes. Try again later."
EXPIRED_CODE = "This code expired. Make a new one on your phone."
USED_CODE = "This code was already used."
EXPIRED_ON_PHONE = "This link expired. Make a new one on your phone."
CHECK_CODE_ON_PHONE = "Check that your phone shows this code, and confirm there."
CONNECTED_HERE = "Connected. Your session continues here."
APPROVED_HERE = "Approved. Your phone shows the result too."
# the computer's confirmation frame
CONFIRM_TITLE = "Confirm your phone"
CONFIRM_COMPUTER = "Confirm your computer"
YES = "Yes, it does"
CONFIRMED = "Confirmed"
NOT_CONFIRMED = "This could not be confirmed"
PHONE_GONE = "This phone is no longer waiting"
SIGN_IN_AGAIN = "Sign in again on this computer to confirm"
NO_WALLET_KEY = "This browser cannot hold a wallet key"

# what the phone's script says, by the name it reads them under (handoff.py `S.t`)
PHONE_SCRIPT = {"connecting": CONNECTING, "check": CHECK_CODE, "connected": CONNECTED, "approved": APPROVED,
                "rejected": REJECTED, "gone": NOT_WAITING, "nokey": NO_KEY, "invalid": UNKNOWN_LINK}
# the computer's page once the code led it to the link (handoff.py, `to` "computer")
COMPUTER_SCRIPT = {**PHONE_SCRIPT, "check": CHECK_CODE_ON_PHONE, "connected": CONNECTED_HERE,
                   "approved": APPROVED_HERE}
CONFIRM_SCRIPT = {"confirmed": CONFIRMED, "failed": NOT_CONFIRMED, "gone": PHONE_GONE, "again": SIGN_IN_AGAIN,
                  "nokey": NO_WALLET_KEY}


def language_of(model: Model) -> str:
    """The session's language (the host's `locale`, else the browser's languages), as the modal's."""
    return resolve(model.options.locale, model.env.languages)


def accepted(header: str) -> str:
    """The language of an `Accept-Language` header (for a page with no session to take it from:
    a made-up link). Bounded: its first 400 characters, at most 8 tags of 35 characters."""
    tags = [part.split(";", 1)[0].strip() for part in header[:400].split(",")]
    return resolve(None, tuple(tag for tag in tags if tag and len(tag) <= 35)[:8])


@cache
def word(text: str, language: str) -> str:
    """`text` in `language` (English when the catalogue has no translation)."""
    if language == ENGLISH:
        return text
    return catalogue(language).translate(text) or text


def words(texts: dict[str, str], language: str) -> dict[str, str]:
    return {name: word(text, language) for name, text in texts.items()}
