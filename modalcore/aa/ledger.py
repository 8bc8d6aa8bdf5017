"""The sponsoring budget's count (issue 32): wei sponsored per chain, smart account and UTC day,
and (issue 38) per client address, per project and for the whole engine, kept in the embedded
wallet's durable store so it holds across restarts and is shared by every worker of a host
(`serve --workers N`, the SQLite file) or by every host (`[database] url`, PostgreSQL), as the
mail budget is (embedded/budget.py).

`reserve` reads the day's spending of every scope, decides (policy.decide) and charges a
sponsorship to each in one transaction holding the scopes' locks (SQLite: `BEGIN IMMEDIATE`;
PostgreSQL: an advisory lock per scope key and day): two workers, or two hosts, never both
spend the last of a budget. When a budget refuses an operation, the refusal is counted per scope (the metric
`modalcore_sponsor_caps_reached_total`, `cap_refusals`) and the first refusal of a scope's key
in a day writes one log line. A charge is
given back (`refund`) when the bundler refuses the operation. When the file cannot be read or
written the budget cannot be known, so nothing is sponsored: the decision is the operator's
`when_budget_spent` (refuse: `LedgerUnavailable`; account_pays: NotSponsored("ledger")).
Amounts are kept as decimal text: a budget may pass SQLite's 64-bit integers.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from ..durable.db import DatabaseError, Durable, Tx
from ..durable.sqlite import SqliteDb
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


def _wei(db: Tx | Durable, sql: str, args: tuple[object, ...]) -> int:
    row = db.execute(sql, args).fetchone()
    return int(str(row[0])) if row else 0


def _spent(db: Tx | Durable, key: tuple[str, str, int]) -> int:
    return _wei(db, "SELECT wei FROM sponsored_wei WHERE chain = ? AND account = ? AND day = ?", key)


def _scope_spent(db: Tx | Durable, scope: BudgetScope, key: str, chain: str, day: int) -> int:
    return _wei(db, "SELECT wei FROM sponsored_scope_wei WHERE scope = ? AND key = ? AND chain = ? AND day = ?",
                (scope, key, chain, day))


def _locks(chain: str, day: int, keys: dict[BudgetScope, str]) -> list[str]:
    """The advisory locks of a charge (PostgreSQL; SQLite's write lock covers them all)."""
    return [f"sponsor:{scope}:{key}:{chain}:{day}" for scope, key in keys.items()]


class SponsorLedger:
    """Sponsored wei per (chain, account, UTC day) in the durable store (`path`: a SQLite path,
    ":memory:", or an open database); rows of past days are dropped as new days are charged."""

    def __init__(self, path: str | Path | Durable) -> None:
        self._db = SqliteDb(path) if isinstance(path, (str, Path)) else path
        self._own = isinstance(path, (str, Path))
        self._db.ensure(_SCHEMA)

    def _spent_all(self, db: Tx | Durable, request: SponsorRequest, day: int) -> dict[BudgetScope, int]:
        spent: dict[BudgetScope, int] = {"account": _spent(db, (request.chain, request.account.lower(), day))}
        for scope in OTHER_SCOPES:
            spent[scope] = _scope_spent(db, scope, scope_key(request, scope), request.chain, day)
        return spent

    def _charge(self, tx: Tx, scope: BudgetScope, key: str, chain: str, day: int, wei: int) -> None:
        """Add `wei` (negative: give back, never below 0) to a scope's day."""
        if scope == "account":
            left = max(0, _spent(tx, (chain, key, day)) + wei)
            tx.execute("INSERT INTO sponsored_wei (chain, account, day, wei) VALUES (?, ?, ?, ?)"
                       " ON CONFLICT (chain, account, day) DO UPDATE SET wei = excluded.wei", (chain, key, day, str(left)))
            return
        left = max(0, _scope_spent(tx, scope, key, chain, day) + wei)
        tx.execute("INSERT INTO sponsored_scope_wei (scope, key, chain, day, wei) VALUES (?, ?, ?, ?, ?)"
                   " ON CONFLICT (scope, key, chain, day) DO UPDATE SET wei = excluded.wei",
                   (scope, key, chain, day, str(left)))

    def _reached(self, tx: Tx, scope: BudgetScope, request: SponsorRequest, day: int, budget: int) -> None:
        """A budget refused an operation: counted, and the first time in its day, one log line."""
        tx.execute("INSERT INTO sponsor_cap_refusals (scope, refused) VALUES (?, 1)"
                   " ON CONFLICT (scope) DO UPDATE SET refused = sponsor_cap_refusals.refused + 1", (scope,))
        key = scope_key(request, scope)
        first = tx.execute("INSERT INTO sponsor_caps_reached (scope, key, chain, day) VALUES (?, ?, ?, ?)"
                           " ON CONFLICT DO NOTHING", (scope, key, request.chain, day)).rowcount == 1
        if first:
            log.warning("sponsoring cap reached: the %s budget of %s on %s (%d wei a day) is spent until the UTC day ends",
                        scope, key or "the engine", request.chain, budget)

    def cap_refusals(self) -> dict[str, int]:
        """Operations a budget refused, by scope, since the file was made (the metric's source);
        {} when the store cannot be read."""
        try:
            rows = self._db.execute("SELECT scope, refused FROM sponsor_cap_refusals").fetchall()
        except DatabaseError as error:
            log.warning("sponsoring ledger unreadable: %s", error)
            return {}
        return {str(scope): int(str(refused)) for scope, refused in rows}

    def spent(self, chain: str, account: str, now_ms: int) -> int | None:
        """The day's sponsored wei; None when the store cannot be read."""
        try:
            return _spent(self._db, (chain, account.lower(), day_of(now_ms)))
        except DatabaseError as error:
            log.warning("sponsoring ledger unreadable: %s", error)
            return None

    def preview(self, policy: SponsorPolicy | None, request: SponsorRequest, now_ms: int) -> SponsorDecision:
        """The decision without charging (before the operation's cost is known)."""
        outside = decide(policy, request, 0)
        if isinstance(outside, NotSponsored):  # outside the policy: the store has no say
            return outside
        try:
            spent = self._spent_all(self._db, request, day_of(now_ms))
        except DatabaseError as error:
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
        keys = {scope: scope_key(request, scope) for scope in SCOPES}
        keys["account"] = request.account.lower()
        try:
            with self._db.transaction(_locks(request.chain, day, keys)) as tx:
                spent = self._spent_all(tx, request, day)
                decision = decide(policy, request, spent["account"], spent)
                over = over_budget(policy, request, spent)
                if over is not None:
                    self._reached(tx, over.scope, request, day, budget_of(policy, over.scope))
                charge = None
                if isinstance(decision, Sponsor) and decision.charge_wei:
                    charge = Charge(request.chain, request.account.lower(), day, decision.charge_wei,
                                    request.client_address, request.project)
                    for scope in SCOPES:
                        self._charge(tx, scope, charge.key(scope), request.chain, day, decision.charge_wei)
                    tx.execute("DELETE FROM sponsored_wei WHERE day < ?", (day,))
                    tx.execute("DELETE FROM sponsored_scope_wei WHERE day < ?", (day,))
                    tx.execute("DELETE FROM sponsor_caps_reached WHERE day < ?", (day,))
        except DatabaseError as error:
            log.warning("sponsoring ledger unwritable: %s", error)
            return _unavailable(policy), None
        return decision, charge

    def refund(self, charge: Charge) -> None:
        """Give back a charge whose operation was never sent (a store failure here keeps the
        charge: the budget errs on the side of sponsoring less)."""
        keys = {scope: charge.key(scope) for scope in SCOPES}
        try:
            with self._db.transaction(_locks(charge.chain, charge.day, keys)) as tx:
                for scope in SCOPES:
                    self._charge(tx, scope, charge.key(scope), charge.chain, charge.day, -charge.wei)
        except DatabaseError as error:
            log.warning("sponsoring ledger refund lost: %s", error)

    def close(self) -> None:
        """Close a SQLite file it opened (a database handed to it is its opener's to close)."""
        if self._own:
            self._db.close()


def memory_ledger() -> SponsorLedger:
    """A ledger kept in this process only (tests, tools): a real engine keeps it in its db."""
    return SponsorLedger(":memory:")
