"""The sponsoring budget's count (issue 32): wei sponsored per chain, smart account and UTC day,
kept in the embedded wallet's SQLite file so it holds across restarts and is shared by every
worker of a host (`serve --workers N`), as the mail budget is (embedded/budget.py).

`reserve` reads the day's spending, decides (policy.decide) and charges a sponsorship in one
`BEGIN IMMEDIATE` transaction: two workers never both spend the last of a budget. A charge is
given back (`refund`) when the bundler refuses the operation. When the file cannot be read or
written the budget cannot be known, so nothing is sponsored: the decision is the operator's
`when_budget_spent` (refuse: `LedgerUnavailable`; account_pays: NotSponsored("ledger")).
Amounts are kept as decimal text: a budget may pass SQLite's 64-bit integers.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ..keyfiles import private_sqlite
from .policy import LedgerUnavailable, NotSponsored, Sponsor, SponsorDecision, SponsorPolicy, SponsorRequest, day_of, decide

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sponsored_wei (
    chain TEXT NOT NULL,
    account TEXT NOT NULL,
    day INTEGER NOT NULL,
    wei TEXT NOT NULL,
    PRIMARY KEY (chain, account, day)
);
CREATE INDEX IF NOT EXISTS sponsored_wei_day ON sponsored_wei (day);
"""


@dataclass(frozen=True)
class Charge:
    """What one sponsorship took from a day's budget (to give it back)."""

    chain: str
    account: str
    day: int
    wei: int


def _unavailable(policy: SponsorPolicy | None) -> SponsorDecision:
    if policy is not None and policy.when_budget_spent == "account_pays":
        return NotSponsored("ledger")
    return LedgerUnavailable()


class SponsorLedger:
    """Sponsored wei per (chain, account, UTC day) in SQLite (`path` may be ":memory:"); rows of
    past days are dropped as new days are charged."""

    def __init__(self, path: str | Path) -> None:
        self._db = private_sqlite(path)
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.executescript(_SCHEMA)

    def _spent(self, key: tuple[str, str, int]) -> int:
        row = self._db.execute("SELECT wei FROM sponsored_wei WHERE chain = ? AND account = ? AND day = ?", key).fetchone()
        return int(row[0]) if row else 0

    def spent(self, chain: str, account: str, now_ms: int) -> int | None:
        """The day's sponsored wei; None when the store cannot be read."""
        try:
            return self._spent((chain, account.lower(), day_of(now_ms)))
        except sqlite3.Error as error:
            log.warning("sponsoring ledger unreadable: %s", error)
            return None

    def preview(self, policy: SponsorPolicy | None, request: SponsorRequest, now_ms: int) -> SponsorDecision:
        """The decision without charging (before the operation's cost is known)."""
        outside = decide(policy, request, 0)
        if isinstance(outside, NotSponsored):  # outside the policy: the store has no say
            return outside
        spent = self.spent(request.chain, request.account, now_ms)
        return _unavailable(policy) if spent is None else decide(policy, request, spent)

    def reserve(self, policy: SponsorPolicy | None, request: SponsorRequest,
                now_ms: int) -> tuple[SponsorDecision, Charge | None]:
        """Decide on the day's spending and, when sponsored, charge it: one transaction."""
        outside = decide(policy, request, 0)
        if isinstance(outside, NotSponsored):
            return outside, None
        key = (request.chain, request.account.lower(), day_of(now_ms))
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                spent = self._spent(key)
                decision = decide(policy, request, spent)
                charge = None
                if isinstance(decision, Sponsor) and decision.charge_wei:
                    charge = Charge(*key, decision.charge_wei)
                    db.execute("INSERT OR REPLACE INTO sponsored_wei (chain, account, day, wei) VALUES (?, ?, ?, ?)",
                               (*key, str(spent + decision.charge_wei)))
                    db.execute("DELETE FROM sponsored_wei WHERE day < ?", (key[2],))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as error:
            log.warning("sponsoring ledger unwritable: %s", error)
            return _unavailable(policy), None
        return decision, charge

    def refund(self, charge: Charge) -> None:
        """Give back a charge whose operation was never sent (a store failure here keeps the
        charge: the budget errs on the side of sponsoring less)."""
        db = self._db
        key = (charge.chain, charge.account, charge.day)
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                left = max(0, self._spent(key) - charge.wei)
                db.execute("UPDATE sponsored_wei SET wei = ? WHERE chain = ? AND account = ? AND day = ?", (str(left), *key))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as error:
            log.warning("sponsoring ledger refund lost: %s", error)

    def close(self) -> None:
        self._db.close()


def memory_ledger() -> SponsorLedger:
    """A ledger kept in this process only (tests, tools): a real engine keeps it in its db."""
    return SponsorLedger(":memory:")
