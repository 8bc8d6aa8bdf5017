"""How many sign-in codes the engine mails, and how many wrong codes an email may try (issue 27).

Each budget is `limit` events per sliding `window`: per client address, per session, per email
and requesting address, per email, per project and engine-wide for codes mailed; per requesting
session and per requesting address for wrong codes typed (issue 38: a stranger who asks codes
for someone's email and types wrong ones spends its own guesses, not the owner's; a requester
with no guesses left gets no new code). A request over any budget is refused before anything is
stored or mailed (`OverBudget`, with the seconds until the earliest budget that refused it has
room again).

The decision is pure (`refusal`): given the times each key spent in its longest window, is there
room in every budget, and if not, how long until there is. The store (`BudgetStore`, in the
embedded wallet's durable store beside the codes: the SQLite file every worker of a host shares,
or the PostgreSQL every host shares) reads and writes in one transaction that holds the keys'
locks (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: an advisory lock per key): two workers, or two
hosts, never both take the last unit.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..durable.db import Durable, Result, Tx
from ..durable.sqlite import SqliteDb

MINUTE_MS = 60_000
HOUR_MS = 3_600_000
PRUNE_EVERY = 256  # takes between two sweeps of rows past every window


class BudgetLimits(BaseModel):
    """The operator's `[embedded.mail_budget]` (0 turns one budget off). The defaults let one
    visitor ask a few codes and retype a few times; a script gets 5 mails a minute from one
    address at most."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    address_per_minute: int = Field(default=5, ge=0)
    address_per_hour: int = Field(default=30, ge=0)
    session_per_hour: int = Field(default=5, ge=0)
    # codes mailed to one email at the request of one client address: what a stranger's address
    # spends of an email's codes, the owner's address still has
    email_per_hour: int = Field(default=5, ge=0)
    # codes mailed to one email from every address together (the inbox's bound against many
    # addresses)
    email_all_per_hour: int = Field(default=20, ge=0)
    project_per_hour: int = Field(default=1_000, ge=0)
    engine_per_hour: int = Field(default=5_000, ge=0)
    # wrong codes typed by one session over the hour, whichever code they were typed for: a new
    # code does not bring new guesses faster than this
    session_guesses_per_hour: int = Field(default=10, ge=0)
    # wrong codes typed from one client address over the hour (IPv6: per /64)
    address_guesses_per_hour: int = Field(default=30, ge=0)


@dataclass(frozen=True)
class Rule:
    """`limit` events for `key` in any `window_ms`."""

    key: str
    limit: int
    window_ms: int


@dataclass(frozen=True)
class OverBudget:
    """A refusal: which budget (its key's scope) and the whole seconds until it has room."""

    scope: str
    seconds: int


def address_key(address: str) -> str:
    """One budget per IPv4 address and per IPv6 /64 (one host's usual allocation, so rotating
    through it buys nothing)."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


def code_rules(limits: BudgetLimits, *, address: str, session: str, email: str,
               project: str) -> list[Rule]:
    """The budgets a code request spends from (an empty address or session: not known, none)."""
    candidates = [
        (f"address:{address_key(address)}" if address else "", limits.address_per_minute, MINUTE_MS),
        (f"address:{address_key(address)}" if address else "", limits.address_per_hour, HOUR_MS),
        (f"session:{session}" if session else "", limits.session_per_hour, HOUR_MS),
        (f"email:{email}:{address_key(address)}" if address else f"email:{email}", limits.email_per_hour, HOUR_MS),
        (f"email:{email}", limits.email_all_per_hour, HOUR_MS),
        (f"project:{project}", limits.project_per_hour, HOUR_MS),
        ("engine", limits.engine_per_hour, HOUR_MS),
    ]
    return [Rule(key, limit, window) for key, limit, window in candidates if key and limit > 0]


def guess_rules(limits: BudgetLimits, *, session: str, address: str) -> list[Rule]:
    """The wrong-code budgets of whoever types (an empty session or address: not known, none)."""
    candidates = [
        (f"guess:session:{session}" if session else "", limits.session_guesses_per_hour),
        (f"guess:address:{address_key(address)}" if address else "", limits.address_guesses_per_hour),
    ]
    return [Rule(key, limit, HOUR_MS) for key, limit in candidates if key and limit > 0]


def refusal(rules: Sequence[Rule], spent: Mapping[str, Sequence[int]], now_ms: int) -> OverBudget | None:
    """None when every rule has room for one more at `now_ms`; else the rule that waits longest.
    `spent[key]` holds the key's event times (any order, older ones ignored)."""
    worst: OverBudget | None = None
    for rule in rules:
        recent = sorted(t for t in spent.get(rule.key, ()) if now_ms - t < rule.window_ms)
        if len(recent) < rule.limit:
            continue
        # room again once the event that keeps the count at the limit leaves the window
        frees_at = recent[len(recent) - rule.limit] + rule.window_ms
        seconds = max(1, -(-(frees_at - now_ms) // 1000))
        if worst is None or seconds > worst.seconds:
            worst = OverBudget(rule.key.split(":", 1)[0], seconds)
    return worst


_SCHEMA = """
CREATE TABLE IF NOT EXISTS mail_budget (
    key TEXT NOT NULL,
    at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS mail_budget_key ON mail_budget (key, at_ms);
"""


@dataclass(frozen=True)
class Receipt:
    """What one take wrote (to give it back: a wrong-code budget spent for a right code)."""

    rows: tuple[int, ...]


class BudgetStore:
    """Event times per key in the durable store (`path` may be a SQLite path, ":memory:", or an
    open database)."""

    def __init__(self, path: str | Path | Durable, *, longest_window_ms: int = HOUR_MS) -> None:
        self._db = SqliteDb(path) if isinstance(path, (str, Path)) else path
        self._own = isinstance(path, (str, Path))
        self._db.ensure(_SCHEMA)
        self._longest = longest_window_ms
        self._takes = 0

    @property
    def db(self) -> Durable:
        return self._db

    @staticmethod
    def locks(rules: Iterable[Rule]) -> list[str]:
        """The lock keys of `rules`' budgets (a transaction holding them is their only writer)."""
        return [f"mail_budget:{key}" for key in sorted({rule.key for rule in rules})]

    def take(self, rules: Sequence[Rule], now_ms: int, *, check: Iterable[Rule] = ()) -> Receipt | OverBudget:
        """One event for every key of `rules` if they and `check` (looked at, not spent) all have
        room; else the refusal, nothing written. Two round trips on PostgreSQL (the locks and the
        read; the write and the COMMIT)."""
        looked = [*rules, *check]
        with self._db.transaction(self.locks(looked)) as tx:
            spent = self.read(tx, looked, now_ms)
            tx.send()
            taken = self.spend(tx, spent, rules, looked, now_ms)
        return taken if isinstance(taken, OverBudget) else Receipt(tuple(int(str(row[0])) for row in taken.rows))

    def read(self, tx: Tx, looked: Sequence[Rule], now_ms: int) -> Result:
        """Queues the read of the times `looked`'s keys spent in their longest window (inside a
        transaction holding their `locks`; filled once `tx` sends it)."""
        keys = sorted({rule.key for rule in looked})
        longest = max((rule.window_ms for rule in looked), default=0)
        marks = ", ".join(["?"] * len(keys))
        return tx.queue(f"SELECT key, at_ms FROM mail_budget WHERE key IN ({marks}) AND at_ms > ?",
                        (*keys, now_ms - longest)) if keys else Result()

    @staticmethod
    def refused(read: Result, looked: Sequence[Rule], now_ms: int) -> OverBudget | None:
        """The refusal if one of `looked` has no room in `read` (what `read` queued, sent)."""
        spent: dict[str, list[int]] = {rule.key: [] for rule in looked}
        for key, at in read.rows:
            spent[str(key)].append(int(str(at)))
        return refusal(looked, spent, now_ms)

    def spend(self, tx: Tx, read: Result, rules: Sequence[Rule], looked: Sequence[Rule],
              now_ms: int) -> Result | OverBudget:
        """The refusal if one of `looked` has no room in `read` (what `read` queued, sent);
        else one event for every key of `rules` queued in `tx`: its Result holds their row ids
        once sent."""
        refused = self.refused(read, looked, now_ms)
        if refused is not None:
            return refused
        taken = sorted({rule.key for rule in rules})
        written = Result()
        if taken:  # one statement, whatever the number of keys
            values = ", ".join(["(?, ?)"] * len(taken))
            written = tx.queue(f"INSERT INTO mail_budget (key, at_ms) VALUES {values} RETURNING rowid",
                               [part for key in taken for part in (key, now_ms)])
        self._takes += 1
        if self._takes % PRUNE_EVERY == 0:
            tx.queue("DELETE FROM mail_budget WHERE at_ms <= ?", (now_ms - self._longest,))
        return written

    def give_back(self, receipt: Receipt) -> None:
        self._db.executemany("DELETE FROM mail_budget WHERE rowid = ?", [(row,) for row in receipt.rows])

    def close(self) -> None:
        """Close a SQLite file it opened (a database handed to it is its opener's to close)."""
        if self._own:
            self._db.close()


class MailBudget:
    """The budgets of one engine: `limits` over `store`."""

    def __init__(self, store: BudgetStore, limits: BudgetLimits | None = None) -> None:
        self.store = store
        self.limits = limits or BudgetLimits()

    def take_code(self, now_ms: int, *, address: str, session: str, email: str,
                  project: str) -> Receipt | OverBudget:
        """Room for one more code mailed to `email`: spent from every budget; also refused while
        the requesting session or address has no wrong-code guesses left (a code it could not use)."""
        rules = code_rules(self.limits, address=address, session=session, email=email, project=project)
        return self.store.take(rules, now_ms, check=guess_rules(self.limits, session=session, address=address))

    def take_guess(self, now_ms: int, *, session: str, address: str) -> Receipt | OverBudget:
        """One wrong-code guess of the session and address that type it."""
        return self.store.take(guess_rules(self.limits, session=session, address=address), now_ms)

    def give_back(self, receipt: Receipt) -> None:
        self.store.give_back(receipt)


def memory_budget(limits: BudgetLimits | None = None) -> MailBudget:
    """A budget kept in this process only (tests, tools): a real engine keeps it in its db."""
    return MailBudget(BudgetStore(":memory:"), limits)
