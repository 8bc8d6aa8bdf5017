"""The sponsoring budget's count (issue 32): wei sponsored per chain, smart account and UTC day,
and (issue 38) per client address, per project and for the whole engine, kept in the embedded
wallet's SQLite file so it holds across restarts and is shared by every worker of a host
(`serve --workers N`), as the mail budget is (embedded/budget.py).

`reserve` reads the day's spending of every scope, decides (policy.decide) and charges a
sponsorship to each in one `BEGIN IMMEDIATE` transaction: two workers never both spend the last
of a budget. When a budget refuses an operation, the refusal is counted per scope (the metric
`modalcore_sponsor_caps_reached_total`, `cap_refusals`) and the first refusal of a scope's key
in a day writes one log line. A charge is
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
from .policy import (SCOPES, BudgetScope, LedgerUnavailable, NotSponsored, Sponsor, SponsorDecision, SponsorPolicy,
                     SponsorRequest, budget_of, day_of, decide, over_budget, scope_key)

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
CREATE TABLE IF NOT EXISTS sponsored_scope_wei (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    chain TEXT NOT NULL,
    day INTEGER NOT NULL,
    wei TEXT NOT NULL,
    PRIMARY KEY (scope, key, chain, day)
);
CREATE INDEX IF NOT EXISTS sponsored_scope_wei_day ON sponsored_scope_wei (day);
CREATE TABLE IF NOT EXISTS sponsor_caps_reached (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    chain TEXT NOT NULL,
    day INTEGER NOT NULL,
    PRIMARY KEY (scope, key, chain, day)
);
CREATE TABLE IF NOT EXISTS sponsor_cap_refusals (
    scope TEXT PRIMARY KEY,
    refused INTEGER NOT NULL
);
"""
OTHER_SCOPES: tuple[BudgetScope, ...] = tuple(s for s in SCOPES if s != "account")


@dataclass(frozen=True)
class Charge:
    """What one sponsorship took from a day's budget (to give it back)."""

    chain: str
    account: str
    day: int
    wei: int
    # the other scopes' keys it was charged to (issue 38): client address, project (the engine's is "")
    address: str = ""
    project: str = ""

    def key(self, scope: BudgetScope) -> str:
        return {"account": self.account, "address": self.address, "project": self.project, "engine": ""}[scope]


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

    def _scope_spent(self, scope: BudgetScope, key: str, chain: str, day: int) -> int:
        row = self._db.execute("SELECT wei FROM sponsored_scope_wei WHERE scope = ? AND key = ? AND chain = ? AND day = ?",
                               (scope, key, chain, day)).fetchone()
        return int(row[0]) if row else 0

    def _spent_all(self, request: SponsorRequest, day: int) -> dict[BudgetScope, int]:
        spent: dict[BudgetScope, int] = {"account": self._spent((request.chain, request.account.lower(), day))}
        for scope in OTHER_SCOPES:
            spent[scope] = self._scope_spent(scope, scope_key(request, scope), request.chain, day)
        return spent

    def _charge(self, scope: BudgetScope, key: str, chain: str, day: int, wei: int) -> None:
        """Add `wei` (negative: give back, never below 0) to a scope's day."""
        if scope == "account":
            left = max(0, self._spent((chain, key, day)) + wei)
            self._db.execute("INSERT OR REPLACE INTO sponsored_wei (chain, account, day, wei) VALUES (?, ?, ?, ?)",
                             (chain, key, day, str(left)))
            return
        left = max(0, self._scope_spent(scope, key, chain, day) + wei)
        self._db.execute("INSERT OR REPLACE INTO sponsored_scope_wei (scope, key, chain, day, wei) VALUES (?, ?, ?, ?, ?)",
                         (scope, key, chain, day, str(left)))

    def _reached(self, scope: BudgetScope, request: SponsorRequest, day: int, budget: int) -> None:
        """A budget refused an operation: counted, and the first time in its day, one log line."""
        db = self._db
        db.execute("INSERT INTO sponsor_cap_refusals (scope, refused) VALUES (?, 1)"
                   " ON CONFLICT (scope) DO UPDATE SET refused = refused + 1", (scope,))
        key = scope_key(request, scope)
        first = db.execute("INSERT OR IGNORE INTO sponsor_caps_reached (scope, key, chain, day) VALUES (?, ?, ?, ?)",
                           (scope, key, request.chain, day)).rowcount == 1
        if first:
            log.warning("sponsoring cap reached: the %s budget of %s on %s (%d wei a day) is spent until the UTC day ends",
                        scope, key or "the engine", request.chain, budget)

    def cap_refusals(self) -> dict[str, int]:
        """Operations a budget refused, by scope, since the file was made (the metric's source);
        {} when the store cannot be read."""
        try:
            rows = self._db.execute("SELECT scope, refused FROM sponsor_cap_refusals").fetchall()
        except sqlite3.Error as error:
            log.warning("sponsoring ledger unreadable: %s", error)
            return {}
        return {str(scope): int(refused) for scope, refused in rows}

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
        try:
            spent = self._spent_all(request, day_of(now_ms))
        except sqlite3.Error as error:
            log.warning("sponsoring ledger unreadable: %s", error)
            return _unavailable(policy)
        return decide(policy, request, spent["account"], spent)

    def reserve(self, policy: SponsorPolicy | None, request: SponsorRequest,
                now_ms: int) -> tuple[SponsorDecision, Charge | None]:
        """Decide on the day's spending and, when sponsored, charge it: one transaction."""
        outside = decide(policy, request, 0)
        if isinstance(outside, NotSponsored):
            return outside, None
        if policy is None:  # decide() said so already; for the type checker
            return NotSponsored("no_policy"), None
        day = day_of(now_ms)
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                spent = self._spent_all(request, day)
                decision = decide(policy, request, spent["account"], spent)
                over = over_budget(policy, request, spent)
                if over is not None:
                    self._reached(over.scope, request, day, budget_of(policy, over.scope))
                charge = None
                if isinstance(decision, Sponsor) and decision.charge_wei:
                    charge = Charge(request.chain, request.account.lower(), day, decision.charge_wei,
                                    request.client_address, request.project)
                    for scope in SCOPES:
                        self._charge(scope, charge.key(scope), request.chain, day, decision.charge_wei)
                    db.execute("DELETE FROM sponsored_wei WHERE day < ?", (day,))
                    db.execute("DELETE FROM sponsored_scope_wei WHERE day < ?", (day,))
                    db.execute("DELETE FROM sponsor_caps_reached WHERE day < ?", (day,))
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
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                for scope in SCOPES:
                    self._charge(scope, charge.key(scope), charge.chain, charge.day, -charge.wei)
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
