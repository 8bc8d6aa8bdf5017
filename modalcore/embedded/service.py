"""The embedded wallet's engine services (what the session's `Call` commands run; issue 15).

- ``embedded.email_code(email)`` → ``{"status": "sent"}`` after mailing a new 6-digit code, or
  ``{"status": "rate_limited", "seconds": n}`` within 30 s of the email's last sent code (SPEC
  §5). A code whose mail fails is withdrawn: the failure does not start the 30 s window.
- ``embedded.email_verify(email, code)`` → ``{"verdict", "attempts_left", "address"}``: on
  ``accepted`` the address of the email's key, created on first sign-in (same email, same address).

The time is the runtime clock's (`ServiceContext.clock`), randomness `os.urandom`: both stay out
of `update`. An invalid email or code raises `ServiceError` (the slice checked them already; a
session never sends one). A mail failure is a `ServiceError` naming the SMTP step, never the
password.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from ..runtime.services import AnyService, Service, ServiceError
from .codes import EmailCodes
from .keys import Identity, KeyVault
from .mail import MailError
from .signer import sign
from .social import SocialSignIns, social_services
from ..farcaster.service import FarcasterSignIns, farcaster_services
from .otp import RANDOM_BYTES, OtpError, RateLimited, Verdict

log = logging.getLogger(__name__)


class CodeMailer(Protocol):
    async def send_code(self, to: str, code: str) -> None: ...


@dataclass
class EmbeddedWallet:
    """What the services share: the code store, the mailer and the key vault."""

    codes: EmailCodes
    mailer: CodeMailer | None
    vault: KeyVault
    random: Callable[[int], bytes] = os.urandom
    socials: SocialSignIns | None = None
    farcaster: FarcasterSignIns | None = None

    def offer(self) -> tuple[bool, tuple[str, ...]]:
        """What sessions may use: email sign-in (an SMTP server is set), the social providers
        (Farcaster when its relay and registry are configured)."""
        socials = self.socials.providers() if self.socials else ()
        return self.mailer is not None, (*socials, *(("farcaster",) if self.farcaster else ()))


def _now(ctx: Any) -> int:
    return int(ctx.clock.now_ms())


class _Args(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class EmailArgs(_Args):
    email: str


class VerifyArgs(_Args):
    email: str
    code: str


class SignArgs(_Args):
    identity: str
    method: str
    params: str
    chain: str


def embedded_services(wallet: EmbeddedWallet) -> dict[str, AnyService]:
    async def email_code(ctx: Any, args: EmailArgs) -> dict[str, Any]:
        if wallet.mailer is None:
            raise ServiceError("email sign-in is not configured")
        try:
            issued = wallet.codes.issue(args.email, _now(ctx), wallet.random(RANDOM_BYTES))
        except RateLimited as limited:
            return {"status": "rate_limited", "seconds": limited.seconds}
        except OtpError as error:
            raise ServiceError(str(error)) from None
        try:
            await wallet.mailer.send_code(issued.email, issued.code)
        except MailError as error:
            # no mail, no window: the visitor may ask again at once (the code is withdrawn)
            wallet.codes.withdraw(issued)
            log.warning("email code not sent: %s", error)
            raise ServiceError(str(error)) from None
        return {"status": "sent"}

    async def email_verify(ctx: Any, args: VerifyArgs) -> dict[str, Any]:
        now = _now(ctx)
        try:
            result = wallet.codes.submit(args.email, args.code, now)
        except OtpError as error:
            raise ServiceError(str(error)) from None
        answer: dict[str, Any] = {"verdict": result.verdict.value, "attempts_left": result.attempts_left}
        if result.verdict is Verdict.ACCEPTED:
            answer["address"] = wallet.vault.get_or_create(Identity("email", args.email.strip().lower()), now)
        return answer

    async def sign_request(ctx: Any, args: SignArgs) -> dict[str, str]:
        return await sign(wallet.vault, ctx, identity=args.identity, method=args.method, params=args.params,
                          chain=args.chain)

    services: dict[str, AnyService] = {
        "embedded.email_code": Service(EmailArgs, email_code),
        "embedded.email_verify": Service(VerifyArgs, email_verify),
        "embedded.sign": Service(SignArgs, sign_request),
    }
    if wallet.socials is not None:
        services.update(social_services(wallet.socials))
    if wallet.farcaster is not None:
        services.update(farcaster_services(wallet.farcaster))
    return services
