"""Who gets gas sponsored (issue 32), pure: the operator's `[smart_accounts.sponsor]` policy and
the decision for one operation, given what the account already spent today.

    [smart_accounts.sponsor]
    projects = ["demo"]                  # empty: no project is sponsored
    chains = ["eip155:31337"]            # CAIP-2 ids
    methods = ["eth_sendTransaction", "wallet_sendCalls"]
    budget_wei_per_day = 10000000000000000   # per account and chain, UTC day; 0: no limit
    address_budget_wei_per_day = 0       # per client address and chain (issue 38); 0: no limit
    project_budget_wei_per_day = 0       # per project and chain, every account
    engine_budget_wei_per_day = 0        # per chain, every project of this engine
    when_budget_spent = "refuse"         # or "account_pays"

An operation outside the policy is not sponsored: the account pays its own gas. One that would
take the account past its day's budget is refused (nothing is sent) unless the operator chose
"account_pays". New identities cost an attacker nothing, so the account's budget alone does not
bound the paymaster (issue 38): the visitor's client address (as the engine sees it, behind the
configured proxy), the project and the whole engine each have a day's budget too, and the first
one an operation would pass decides (`BudgetSpent.scope`). The budget is charged the operation's most it can cost (gas limits × max fee);
the count lives in aa/ledger.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

DAY_MS = 86_400_000
SponsorableMethod = Literal["eth_sendTransaction", "wallet_sendCalls", "eth_sendUserOperation"]
SPONSORABLE_METHODS: tuple[SponsorableMethod, ...] = ("eth_sendTransaction", "wallet_sendCalls", "eth_sendUserOperation")


class SponsorPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    projects: Annotated[list[Annotated[str, Field(max_length=128)]], Field(max_length=256)] = []  # project ids sponsored
    chains: Annotated[list[Annotated[str, Field(max_length=64)]], Field(max_length=64)] = []  # CAIP-2 ids sponsored
    methods: list[SponsorableMethod] = list(SPONSORABLE_METHODS)  # the requests whose operations are sponsored
    # per smart account and chain, per UTC day, charged each operation's most possible cost (kept in
    # the embedded db: across restarts and workers; given back when the bundler refuses); 0: no limit
    budget_wei_per_day: Annotated[int, Field(ge=0, le=10**30)] = 0
    # per client address (the visitor's IP as the engine sees it, behind the configured proxy
    # headers) and chain, per UTC day, every account it signs in with; 0: no limit
    address_budget_wei_per_day: Annotated[int, Field(ge=0, le=10**30)] = 0
    # per project and chain, per UTC day, all its accounts together; 0: no limit
    project_budget_wei_per_day: Annotated[int, Field(ge=0, le=10**30)] = 0
    # per chain, per UTC day, every project of this engine (all its workers) together; 0: no limit
    engine_budget_wei_per_day: Annotated[int, Field(ge=0, le=10**30)] = 0
    # refuse (nothing sent) or let the account pay; also when the budget's store fails (aa/ledger.py)
    when_budget_spent: Literal["refuse", "account_pays"] = "refuse"
    # How long a paymaster signature stays good (its validUntil, from the chain's latest block).
    valid_for_s: Annotated[int, Field(ge=30, le=86_400)] = 600


# ledger: the budget's store could not be read or written and the operator lets the account pay
NotSponsoredReason = Literal["no_policy", "no_paymaster", "project", "chain", "method", "budget", "ledger"]


@dataclass(frozen=True)
class SponsorRequest:
    project: str
    chain: str  # CAIP-2
    method: str
    account: str  # the smart account (sender)
    max_cost_wei: int  # gas limits × maxFeePerGas: the most the paymaster can be charged
    client_address: str = ""  # the visitor's address as the engine sees it ("" when not known)


# the day's budgets, each counted apart: checked in this order, the first one passed decides
BudgetScope = Literal["account", "address", "project", "engine"]
SCOPES: tuple[BudgetScope, ...] = ("account", "address", "project", "engine")


def budget_of(policy: SponsorPolicy, scope: BudgetScope) -> int:
    """The day's budget of `scope` in wei (0: no limit)."""
    return {"account": policy.budget_wei_per_day, "address": policy.address_budget_wei_per_day,
            "project": policy.project_budget_wei_per_day, "engine": policy.engine_budget_wei_per_day}[scope]


def scope_key(request: SponsorRequest, scope: BudgetScope) -> str:
    """What `scope`'s count is kept under (per chain and day besides)."""
    return {"account": request.account.lower(), "address": request.client_address, "project": request.project,
            "engine": ""}[scope]


@dataclass(frozen=True)
class Sponsor:
    """Sponsor it and charge the account's day `charge_wei`."""

    charge_wei: int


@dataclass(frozen=True)
class NotSponsored:
    """The account pays its own gas."""

    reason: NotSponsoredReason


@dataclass(frozen=True)
class BudgetSpent:
    """Refused: a sponsored budget for the day is used up (`scope`: the account's, the client
    address's, the project's or the engine's). Nothing is sent."""

    spent_wei: int
    budget_wei: int
    scope: BudgetScope = "account"


@dataclass(frozen=True)
class LedgerUnavailable:
    """Refused: the day's spending cannot be read or charged (its store failed), and the operator
    refuses rather than let the account pay. Nothing is sent; nothing is sponsored unbounded."""


SponsorDecision = Sponsor | NotSponsored | BudgetSpent | LedgerUnavailable


def day_of(now_ms: int) -> int:
    return now_ms // DAY_MS


def over_budget(policy: SponsorPolicy, request: SponsorRequest,
                spent: Mapping[BudgetScope, int]) -> BudgetSpent | None:
    """The first budget the operation would pass (`spent`: each scope's spending today)."""
    for scope in SCOPES:
        budget = budget_of(policy, scope)
        already = spent.get(scope, 0)
        if budget and already + request.max_cost_wei > budget:
            return BudgetSpent(already, budget, scope)
    return None


def decide(policy: SponsorPolicy | None, request: SponsorRequest, spent_today_wei: int,
           spent: Mapping[BudgetScope, int] | None = None) -> SponsorDecision:
    """`spent_today_wei`: the account's spending today; `spent`: the other scopes' (issue 38)."""
    if policy is None:
        return NotSponsored("no_policy")
    if request.project not in policy.projects:
        return NotSponsored("project")
    if request.chain not in policy.chains:
        return NotSponsored("chain")
    if request.method not in policy.methods:
        return NotSponsored("method")
    over = over_budget(policy, request, {**(spent or {}), "account": spent_today_wei})
    if over is not None:
        if policy.when_budget_spent == "account_pays":
            return NotSponsored("budget")
        return over
    return Sponsor(request.max_cost_wei)
