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

from ..durable.db import DatabaseError, Durable, Result, Tx
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


def _spent_of(db: Tx | Durable, chain: str, day: int, keys: dict[BudgetScope, str]) -> dict[BudgetScope, int]:
    """Every scope's day spent, in one statement (one round trip): 0 for a scope with no row."""
    rows = db.execute(
        "SELECT 'account', wei FROM sponsored_wei WHERE chain = ? AND account = ? AND day = ? UNION ALL "
        "SELECT scope, wei FROM sponsored_scope_wei WHERE chain = ? AND day = ? AND ("
        + " OR ".join(["(scope = ? AND key = ?)"] * len(OTHER_SCOPES)) + ")",
        (chain, keys["account"], day, chain, day, *[part for scope in OTHER_SCOPES for part in (scope, keys[scope])]),
    ).fetchall()
    spent: dict[BudgetScope, int] = {scope: 0 for scope in SCOPES}
    for scope, wei in rows:
        spent[next(s for s in SCOPES if s == scope)] = int(str(wei))
    return spent


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
        keys = {scope: scope_key(request, scope) for scope in SCOPES}
        keys["account"] = request.account.lower()
        return _spent_of(db, request.chain, day, keys)

    def _charge(self, tx: Tx, scope: BudgetScope, key: str, chain: str, day: int, left: int) -> None:
        """Queue a scope's day at `left` wei (what it had spent, plus or minus one charge)."""
        if scope == "account":
            tx.queue("INSERT INTO sponsored_wei (chain, account, day, wei) VALUES (?, ?, ?, ?)"
                     " ON CONFLICT (chain, account, day) DO UPDATE SET wei = excluded.wei", (chain, key, day, str(left)))
            return
        tx.queue("INSERT INTO sponsored_scope_wei (scope, key, chain, day, wei) VALUES (?, ?, ?, ?, ?)"
                 " ON CONFLICT (scope, key, chain, day) DO UPDATE SET wei = excluded.wei",
                 (scope, key, chain, day, str(left)))

    def _reached(self, tx: Tx, scope: BudgetScope, request: SponsorRequest, day: int) -> Result:
        """A budget refused an operation: counted (queued); the Result says, once sent, whether it
        is the first time in its day (one row: log it)."""
        tx.queue("INSERT INTO sponsor_cap_refusals (scope, refused) VALUES (?, 1)"
                 " ON CONFLICT (scope) DO UPDATE SET refused = sponsor_cap_refusals.refused + 1", (scope,))
        return tx.queue("INSERT INTO sponsor_caps_reached (scope, key, chain, day) VALUES (?, ?, ?, ?)"
                        " ON CONFLICT DO NOTHING", (scope, scope_key(request, scope), request.chain, day))

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
            # two round trips on PostgreSQL: BEGIN, the locks and the read; the writes and COMMIT
            with self._db.transaction(_locks(request.chain, day, keys)) as tx:
                spent = _spent_of(tx, request.chain, day, keys)
                decision = decide(policy, request, spent["account"], spent)
                over = over_budget(policy, request, spent)
                first = None if over is None else self._reached(tx, over.scope, request, day)
                charge = None
                if isinstance(decision, Sponsor) and decision.charge_wei:
                    charge = Charge(request.chain, request.account.lower(), day, decision.charge_wei,
                                    request.client_address, request.project)
                    for scope in SCOPES:
                        self._charge(tx, scope, charge.key(scope), request.chain, day,
                                     spent[scope] + decision.charge_wei)
                    tx.queue("DELETE FROM sponsored_wei WHERE day < ?", (day,))
                    tx.queue("DELETE FROM sponsored_scope_wei WHERE day < ?", (day,))
                    tx.queue("DELETE FROM sponsor_caps_reached WHERE day < ?", (day,))
        except DatabaseError as error:
            log.warning("sponsoring ledger unwritable: %s", error)
            return _unavailable(policy), None
        if over is not None and first is not None and first.rowcount == 1:
            log.warning("sponsoring cap reached: the %s budget of %s on %s (%d wei a day) is spent until the UTC day ends",
                        over.scope, scope_key(request, over.scope) or "the engine", request.chain,
                        budget_of(policy, over.scope))
        return decision, charge

    def refund(self, charge: Charge) -> None:
        """Give back a charge whose operation was never sent (a store failure here keeps the
        charge: the budget errs on the side of sponsoring less)."""
        keys = {scope: charge.key(scope) for scope in SCOPES}
        try:
            with self._db.transaction(_locks(charge.chain, charge.day, keys)) as tx:
                spent = _spent_of(tx, charge.chain, charge.day, keys)
                for scope in SCOPES:  # never below 0
                    self._charge(tx, scope, charge.key(scope), charge.chain, charge.day,
                                 max(0, spent[scope] - charge.wei))
        except DatabaseError as error:
            log.warning("sponsoring ledger refund lost: %s", error)

    def close(self) -> None:
        """Close a SQLite file it opened (a database handed to it is its opener's to close)."""
        if self._own:
            self._db.close()


def memory_ledger() -> SponsorLedger:
    """A ledger kept in this process only (tests, tools): a real engine keeps it in its db."""
    return SponsorLedger(":memory:")
