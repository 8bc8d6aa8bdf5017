"""The embedded wallet's engine services (what the session's `Call` commands run; issue 15).

- ``embedded.email_code(email)`` → ``{"status": "sent"}`` after mailing a new 6-digit code, or
  ``{"status": "rate_limited", "seconds": n}`` within 30 s of the email's last sent code (behaviour.md
  §5). A code whose mail fails is withdrawn: the failure does not start the 30 s window.
  ``{"status": "over_budget", "scope": s, "seconds": n}`` when a mail budget (budget.py: per
  client address, session, email, project, engine-wide; or the requester's wrong-code guesses)
  has no room: nothing stored, nothing mailed. The code belongs to the requesting session.
- `check_code(email, code, public_key, session, address)` (not a session's call: the sign-in frame's route,
  server/verify.py) → ``{"verdict", "attempts_left", "address"}``: on ``accepted`` the address
  of the email's key, created on first sign-in (same email, same address), and the frame's key
  registered for the email (issue 27).
  Only the code `session` asked is compared (issue 38). A wrong code spends one of the typing
  session's and address's guesses for the hour; with none left the verdict is ``locked`` and the
  code is not even compared. A stranger's guesses never spend the owner's.

The time is the runtime clock's (`ServiceContext.clock`), randomness `os.urandom`: both stay out
of `update`. An invalid email or code raises `ServiceError` (the slice checked them already; a
session never sends one). A mail failure is a `ServiceError` naming the SMTP step, never the
password.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NotRequired, Protocol, TypedDict

from ..aa.ledger import SponsorLedger, memory_ledger
from ..durable.db import Durable
from ..core.services import serve, ServiceContext, ServiceError, ServiceTable
from ..services.domain.handles import (CALLS_STATUS, EMAIL_CODE, EMBEDDED_RESOLVE, EMBEDDED_SIGN, SMART_ACCOUNTS, USEROP_CHECK, CodeSent,
                                EmailArgs, SignArgs, SmartAccountsArgs, SmartAccountsFound)
from ..services.domain.shapes import UserOpCheckArgs, UserOpChecked
from .budget import MailBudget, OverBudget
from . import signin_steps as steps
from .codes import EmailCodes
from .devicekeys import DeviceKeys
from .passkeys import Passkeys
from .keys import KeyVault
from .mail import MailError
from .intents import SendIntents, memory_intents
from .resolve import resolve
from .signer import sign
from .smart import smart_accounts
from .smart_calls import calls_status
from .smart_estimate import userop_check
from .social import SocialSignIns
from .otp import RANDOM_BYTES, OtpError, RateLimited, Verdict
from ..farcaster.service import FarcasterSignIns, farcaster_services

log = logging.getLogger(__name__)


class CodeMailer(Protocol):
    async def send_code(self, to: str, code: str) -> None: ...


@dataclass
class EmbeddedWallet:
    """What the services share: the code store, the mailer and the key vault."""

    codes: EmailCodes
    mailer: CodeMailer | None
    vault: KeyVault
    # the frames' public keys that may approve (issue 27)
    devices: DeviceKeys
    budget: MailBudget
    random: Callable[[int], bytes] = os.urandom
    socials: SocialSignIns | None = None
    farcaster: FarcasterSignIns | None = None
    # gas sponsored per smart account and day (issue 32's [smart_accounts.sponsor] budget)
    sponsored: SponsorLedger = field(default_factory=memory_ledger)
    # what the signer was about to broadcast, per session and request (issue 38, intents.py)
    intents: SendIntents = field(default_factory=memory_intents)
    # the accounts' passkeys (issue 43 §3, passkeys.py): sign-in and approval credentials
    passkeys: Passkeys = field(default_factory=Passkeys)
    # the database every store above writes to, when open_wallet opened one (closed with the app)
    db: Durable | None = None

    def __post_init__(self) -> None:
        # each step of an email sign-in is one transaction over the codes, the budgets, the keys
        # and the device keys (signin_steps.py): they must share one database
        if not steps.one_database(self.codes.store.db, self.budget.store.db, self.vault.db, self.devices.db):
            raise ValueError("the codes, mail budgets, keys and device keys must share one database")

    def close(self) -> None:
        """Close the database open_wallet opened (PostgreSQL's pool; SQLite's connection)."""
        if self.db is not None:
            self.db.close()

    def offer(self) -> tuple[bool, tuple[str, ...]]:
        """What sessions may use: email sign-in (an SMTP server is set), the social providers
        (Farcaster when its relay and registry are configured)."""
        socials = self.socials.providers() if self.socials else ()
        return self.mailer is not None, (*socials, *(("farcaster",) if self.farcaster else ()))


def _now(ctx: ServiceContext | None) -> int:
    if ctx is None:
        raise ServiceError("the service needs its session's clock")
    return ctx.clock.now_ms()


def _address(ctx: ServiceContext | None) -> str:
    return ctx.client_address() if ctx is not None else ""


def _session(ctx: ServiceContext | None) -> str:
    return ctx.session_id if ctx is not None else ""


def _project(ctx: ServiceContext | None) -> str:
    return ctx.project_id if ctx is not None else ""


class CodeChecked(TypedDict):
    """A code typed in the sign-in frame checked: the address of the email's key on `accepted`."""

    verdict: str  # a Verdict's value
    attempts_left: int
    address: NotRequired[str]


async def send_code(wallet: EmbeddedWallet, email: str, now: int, *, address: str = "", session: str = "",
                    project: str = "") -> CodeSent:
    """Mails a new code to `email`: `{"status": "sent"}`, `{"status": "rate_limited", "seconds"}`
    (behaviour.md §5's 30 s, checked first and spending nothing) or `{"status": "over_budget", "scope",
    "seconds"}` (a mail budget of budget.py has no room: nothing stored, nothing mailed);
    ServiceError when it cannot (not configured, invalid email, mail failed)."""
    if wallet.mailer is None:
        raise ServiceError("email sign-in is not configured")
    try:
        asked = steps.ask_code(wallet.codes, wallet.budget, email, now, wallet.random(RANDOM_BYTES),
                               address=address, session=session, project=project)  # one transaction
    except RateLimited as limited:
        return {"status": "rate_limited", "seconds": limited.seconds}
    except OtpError as error:
        raise ServiceError(str(error)) from None
    if isinstance(asked, OverBudget):
        log.info("email code refused: the %s budget is spent for %d s", asked.scope, asked.seconds)
        return {"status": "over_budget", "scope": asked.scope, "seconds": asked.seconds}
    issued = asked
    try:
        await wallet.mailer.send_code(issued.email, issued.code)
    except MailError as error:
        # no mail, no window: the visitor may ask again at once (the code is withdrawn); the
        # budgets stay spent: they bound what the engine asks of the SMTP server too
        wallet.codes.withdraw(issued)
        log.warning("email code not sent: %s", error)
        raise ServiceError(str(error)) from None
    return {"status": "sent"}


def check_code(wallet: EmbeddedWallet, email: str, code: str, public_key: str, now: int, *, session: str = "",
               address: str = "") -> CodeChecked:
    """The code typed inside the engine-origin frame, with that frame's public key (issue 27):
    `{"verdict", "attempts_left"}`, and on `accepted` the address of the email's key (created on
    first sign-in) with the frame's key registered for the email. Raises BadPublicKey (before
    the code is spent) or ServiceError (not an email or a code)."""
    try:
        checked = steps.check_code(wallet.codes, wallet.budget, wallet.vault, wallet.devices, email, code,
                                   public_key, now, session=session, address=address)  # one transaction
    except OtpError as error:
        raise ServiceError(str(error)) from None
    result = checked.verification
    answer: CodeChecked = {"verdict": result.verdict.value, "attempts_left": result.attempts_left}
    if result.verdict is Verdict.ACCEPTED:
        answer["address"] = checked.address
    return answer


def embedded_services(wallet: EmbeddedWallet) -> ServiceTable:
    async def email_code(ctx: ServiceContext | None, args: EmailArgs) -> CodeSent:
        return await send_code(wallet, args.email, _now(ctx), address=_address(ctx), session=_session(ctx),
                               project=_project(ctx))

    async def sign_request(ctx: ServiceContext | None, args: SignArgs) -> dict[str, str]:
        return await sign(wallet.vault, ctx, identity=args.identity, method=args.method, params=args.params,
                          chain=args.chain, account=args.account, ledger=wallet.sponsored, intents=wallet.intents,
                          request=args.request)

    async def resolve_request(ctx: ServiceContext | None, args: SignArgs) -> dict[str, str]:
        return await resolve(wallet.vault, ctx, wallet.intents, identity=args.identity, method=args.method,
                             params=args.params, chain=args.chain, account=args.account, request=args.request)

    async def read_smart_accounts(ctx: ServiceContext | None, args: SmartAccountsArgs) -> SmartAccountsFound:
        return await smart_accounts(wallet.vault, ctx, args)

    services: ServiceTable = {
        EMAIL_CODE: serve(EMAIL_CODE, email_code),
        EMBEDDED_SIGN: serve(EMBEDDED_SIGN, sign_request),
        EMBEDDED_RESOLVE: serve(EMBEDDED_RESOLVE, resolve_request),
        SMART_ACCOUNTS: serve(SMART_ACCOUNTS, read_smart_accounts),
        CALLS_STATUS: serve(CALLS_STATUS, calls_status),
    }
    if wallet.farcaster is not None:
        services.update(farcaster_services(wallet.farcaster))
    return services


def userop_services(wallet: EmbeddedWallet) -> ServiceTable:
    """The bundler's check of a smart account's request before its approval (issue 43,
    smart_estimate.py): a read, registered beside `embedded_services` (the sessions' test worlds
    run the wallet's services and leave the simulations to the tests that ask for them)."""
    async def check_user_operation(ctx: ServiceContext | None, args: UserOpCheckArgs) -> UserOpChecked:
        return await userop_check(ctx, wallet.sponsored, args)

    return {USEROP_CHECK: serve(USEROP_CHECK, check_user_operation)}
