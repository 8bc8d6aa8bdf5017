"""The email sign-in's two steps, each one transaction on the wallet's database (service.py runs
them when the stores share one database, as open_wallet builds them).

- A code asked: the email's code row and every mail budget of the request read at once under all
  their locks; the 30 s window, then the budgets decided; the code row and the budgets' events
  written with the COMMIT. On PostgreSQL two round trips (was one transaction per store).
- A code typed: the typing requester's wrong-code budgets, the code row and the email's key read
  at once under their locks; the guesses decided, the code checked; a wrong code's guess, the
  row, and on `accepted` the email's new key (sealed here before it is queued) and the frame's
  device key written with the COMMIT. Two round trips.

The decisions are the same functions the stores' own calls use (budget.refusal through
BudgetStore.spend, otp.issue and otp.verify through EmailCodes); the budget is still decided and
charged in one transaction holding its keys' locks, so two hosts racing for its last unit do not
both win. Nothing refused is written: a refusal found after the code row was queued rolls the
transaction back.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ..durable.db import Durable, Result
from .budget import MailBudget, OverBudget, Rule, code_rules, guess_rules
from .codes import EmailCodes, IssuedCode, row_key
from .devicekeys import DeviceKeys, parse_public_key
from .keys import Identity, KeyVault
from .otp import Verdict, Verification, normalize_email


log = logging.getLogger(__name__)


class _Refused(Exception):
    """A budget refused the code after its row was queued: the transaction rolls back."""

    def __init__(self, over: OverBudget) -> None:
        super().__init__(over)
        self.over = over


def one_database(*dbs: Durable) -> bool:
    """Whether the stores share one database (one transaction can hold them all)."""
    return all(db is dbs[0] for db in dbs)


def ask_code(codes: EmailCodes, budget: MailBudget, email: object, now_ms: int, random_bytes: bytes, *,
             address: str, session: str, project: str) -> IssuedCode | OverBudget:
    """A new code stored for `email` and `session` with every budget of the request spent, or
    the budget that refused it (nothing written); raises InvalidEmail / RateLimited (nothing
    written, nothing spent)."""
    normalized = normalize_email(email)
    row = row_key(normalized, session)
    rules = code_rules(budget.limits, address=address, session=session, email=normalized, project=project)
    looked: list[Rule] = [*rules, *guess_rules(budget.limits, session=session, address=address)]
    store = budget.store
    try:
        with store.db.transaction([*store.locks(looked), codes.store.lock(row)]) as tx:
            spent = store.read(tx, looked, now_ms)
            issued = codes.issue_held(codes.store.bound(tx), normalized, row, now_ms, random_bytes)  # sends the reads
            taken = store.spend(tx, spent, rules, looked, now_ms)
            if isinstance(taken, OverBudget):
                raise _Refused(taken)  # the code row queued (SQLite: written) is rolled back
    except _Refused as refused:
        return refused.over
    return issued


@dataclass(frozen=True)
class Checked:
    """A typed code's verification, and on `accepted` the address of the email's key."""

    verification: Verification
    address: str = ""


def check_code(codes: EmailCodes, budget: MailBudget, vault: KeyVault, devices: DeviceKeys, email: str,
               code: object, public_key: str, now_ms: int, *, session: str, address: str) -> Checked:
    """The code `session` asked for `email`, typed with the frame's `public_key`: a wrong one
    spends one of the typist's guesses (none left: locked, not compared); on `accepted` the
    email's key (created on first sign-in) and the frame's key registered. Raises BadPublicKey
    before anything is read, InvalidEmail / InvalidCodeFormat with nothing written."""
    parse_public_key(public_key)
    normalized = normalize_email(email)
    row = row_key(normalized, session)
    guesses = guess_rules(budget.limits, session=session, address=address)
    identity = Identity("email", email.strip().lower())
    device = f"email:{email.strip().lower()}"
    store = budget.store
    with store.db.transaction([*store.locks(guesses), codes.store.lock(row), devices.lock(device)]) as tx:
        spent = store.read(tx, guesses, now_ms)
        known = vault.queue_address(tx, identity)
        bound = codes.store.bound(tx)
        record = bound.get(row)  # sends the reads: one round trip
        if store.refused(spent, guesses, now_ms) is not None:  # the typist's wrong guesses are spent
            return Checked(Verification(Verdict.LOCKED, 0))  # the code not even compared
        result = codes.submit_held(bound, normalized, record, code, now_ms)
        if result.verdict in (Verdict.WRONG, Verdict.LOCKED):
            store.spend(tx, spent, guesses, guesses, now_ms)  # only a wrong code is a guess
        made: tuple[Result, str] | None = None
        if result.verdict is Verdict.ACCEPTED:
            if not known.rows:
                made = vault.queue_create(tx, identity, now_ms)
            devices.queue_register(tx, device, public_key, now_ms)
    if result.verdict is not Verdict.ACCEPTED:
        return Checked(result)
    if made is None:
        return Checked(result, str(known.rows[0][0]))
    stored, sealed = made
    kept = str(stored.rows[0][0])
    if kept == sealed:  # not another host's, stored first
        log.info("embedded wallet created for %s: %s", identity.kind, kept)
    return Checked(result, kept)
