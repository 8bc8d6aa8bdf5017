"""One approval signs in (issue 33, with issue 27's rule that only the visitor approves): when
the host requires sign-in, the Farcaster approval is the visitor's consent to sign in to this
host, and the engine signs the SIWX message with the FID's embedded key without a second
approval, but only a message that says nothing the visitor did not approve.

Why that is the visitor's consent: the channel is opened by the engine (for ConnectingFarcaster's
engine-origin frame) with the sign-in's own domain, URI and nonce, a SIWX nonce the engine issued
to this session; the visitor's Farcaster client shows that domain and signs the message with the
custody key, which neither the host page nor its server holds. A hostile host cannot forge it;
a host using a FID of its own only signs into that FID's own account.

`check_sign_in` is what the signing service (`farcaster.sign_in`, service.py) checks of the
message the session asks it to sign, against the `Approval` the verified answer left: the same
session, domain, URI and nonce; a statement absent or the one the visitor was shown ("Farcaster
Auth"); no other text (resources, request id, not-before); an address of the FID's embedded key on
the message's chain (its own, or its smart account where the chain has one: the account the
session shows, issue 32); issued now.
A refusal is a `SignInRefusal` value; the session then falls back to the two-step sign-in.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from enum import Enum

from ..siwx.domain.grammar import SiwxMessageError
from ..siwx.domain.message import SiwxMessage

ISSUED_WITHIN_MS = 30_000  # "issued now": the session builds it when the sign-in lookup answers
APPROVAL_TTL_MS = 120_000  # a verified answer signs in within this, or not at all


@dataclass(frozen=True)
class SignInBinding:
    """A channel opened for a SIWX sign-in: the session it was opened for and the sign-in
    message's domain, URI and nonce (the SIWX nonce the engine issued to that session)."""

    session: str
    domain: str
    uri: str
    nonce: str


@dataclass(frozen=True)
class Approval:
    """What the visitor approved in their Farcaster client (the verified message's fields), for
    the session the channel was opened for."""

    session: str
    fid: int
    domain: str
    uri: str
    nonce: str
    statement: str
    verified_at: int


class SignInRefusal(Enum):
    NO_APPROVAL = "no_approval"
    SESSION = "session"
    STALE = "stale"
    MALFORMED = "malformed"
    DOMAIN = "domain"
    URI = "uri"
    NONCE = "nonce"
    STATEMENT = "statement"
    EXTRA_TEXT = "extra_text"
    ADDRESS = "address"
    NOT_NOW = "not_now"


def check_sign_in(approval: Approval, text: str, accounts: Callable[[int], Collection[str]], session: str,
                  now_ms: int) -> SiwxMessage | SignInRefusal:
    """The SIWX message `text` may be signed at once for `approval` by the FID's key, whose
    addresses on chain id N are `accounts(N)`."""
    if session != approval.session:
        return SignInRefusal.SESSION
    if now_ms - approval.verified_at > APPROVAL_TTL_MS:
        return SignInRefusal.STALE
    try:
        message = SiwxMessage.parse(text)
    except SiwxMessageError:
        return SignInRefusal.MALFORMED
    if message.domain != approval.domain:
        return SignInRefusal.DOMAIN
    if message.uri != approval.uri:
        return SignInRefusal.URI
    if message.nonce != approval.nonce:
        return SignInRefusal.NONCE
    if message.statement not in (None, approval.statement):
        return SignInRefusal.STATEMENT
    if message.resources or message.request_id is not None or message.not_before is not None:
        return SignInRefusal.EXTRA_TEXT
    if message.account_address.lower() not in {a.lower() for a in accounts(message.chain_id)}:
        return SignInRefusal.ADDRESS
    if abs(now_ms - message.issued_at_ms) > ISSUED_WITHIN_MS:
        return SignInRefusal.NOT_NOW
    expiry = message.expiration_time_ms
    if expiry is not None and expiry <= now_ms:
        return SignInRefusal.NOT_NOW
    return message
