"""The embedded wallet's engine services (what the session's `Call` commands run; issue 15).

- ``embedded.email_code(email)`` → ``{"status": "sent"}`` after mailing a new 6-digit code, or
  ``{"status": "rate_limited", "seconds": n}`` within 30 s of the email's last sent code (SPEC
  §5). A code whose mail fails is withdrawn: the failure does not start the 30 s window.
  ``{"status": "over_budget", "scope": s, "seconds": n}`` when a mail budget (budget.py: per
  client address, session, email, project, engine-wide; or the email's wrong-code guesses) has
  no room: nothing stored, nothing mailed.
- ``embedded.email_verify(email, code)`` → ``{"verdict", "attempts_left", "address"}``: on
  ``accepted`` the address of the email's key, created on first sign-in (same email, same address).
  A wrong code spends one of the email's guesses for the hour; with none left the verdict is
  ``locked`` and the code is not even compared.

The time is the runtime clock's (`ServiceContext.clock`), randomness `os.urandom`: both stay out
of `update`. An invalid email or code raises `ServiceError` (the slice checked them already; a
session never sends one). A mail failure is a `ServiceError` naming the SMTP step, never the
password.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from ..runtime.services import AnyService, Service, ServiceError
from .budget import MailBudget, OverBudget, memory_budget
from .codes import EmailCodes
from .keys import Identity, KeyVault
from .mail import MailError
from .signer import sign
from .social import SocialSignIns, social_services
from .otp import RANDOM_BYTES, OtpError, RateLimited, Verdict, normalize_email

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
    budget: MailBudget = field(default_factory=memory_budget)

    def offer(self) -> tuple[bool, tuple[str, ...]]:
        """What sessions may use: email sign-in (an SMTP server is set), the social providers."""
        return self.mailer is not None, self.socials.providers() if self.socials else ()


def _now(ctx: Any) -> int:
    return int(ctx.clock.now_ms())


def _address(ctx: Any) -> str:
    return str(ctx.client_address()) if ctx is not None else ""


def _session(ctx: Any) -> str:
    return str(ctx.session_id) if ctx is not None else ""


def _project(ctx: Any) -> str:
    return str(ctx.project_id) if ctx is not None else ""


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
        now = _now(ctx)
        try:
            issued = wallet.codes.issue(args.email, now, wallet.random(RANDOM_BYTES))
        except RateLimited as limited:  # SPEC §5's 30 s per email comes first, and spends nothing
            return {"status": "rate_limited", "seconds": limited.seconds}
        except OtpError as error:
            raise ServiceError(str(error)) from None
        spent = wallet.budget.take_code(now, address=_address(ctx), session=_session(ctx),
                                        email=issued.email, project=_project(ctx))
        if isinstance(spent, OverBudget):
            wallet.codes.withdraw(issued)  # the email's row as it was: nothing changed
            log.info("email code refused: the %s budget is spent for %d s", spent.scope, spent.seconds)
            return {"status": "over_budget", "scope": spent.scope, "seconds": spent.seconds}
        try:
            await wallet.mailer.send_code(issued.email, issued.code)
        except MailError as error:
            # no mail, no window: the visitor may ask again at once (the code is withdrawn); the
            # budgets stay spent: they bound what the engine asks of the SMTP server too
            wallet.codes.withdraw(issued)
            log.warning("email code not sent: %s", error)
            raise ServiceError(str(error)) from None
        return {"status": "sent"}

    async def email_verify(ctx: Any, args: VerifyArgs) -> dict[str, Any]:
        now = _now(ctx)
        try:
            email = normalize_email(args.email)
        except OtpError as error:
            raise ServiceError(str(error)) from None
        guess = wallet.budget.take_guess(now, email)
        if isinstance(guess, OverBudget):
            return {"verdict": Verdict.LOCKED.value, "attempts_left": 0}
        try:
            result = wallet.codes.submit(email, args.code, now)
        except OtpError as error:
            wallet.budget.give_back(guess)
            raise ServiceError(str(error)) from None
        if result.verdict not in (Verdict.WRONG, Verdict.LOCKED):
            wallet.budget.give_back(guess)  # only a wrong code is a guess
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
    return services
