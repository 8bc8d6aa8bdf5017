"""The sponsoring policy (modalcore/aa/policy.py): outside the policy the account pays; past the
day's budget the operation is refused, or paid by the account when the operator says so."""

from __future__ import annotations

from modalcore.aa.policy import BudgetSpent, NotSponsored, Sponsor, SponsorPolicy, SponsorRequest, decide

POLICY = SponsorPolicy(projects=["demo"], chains=["eip155:31337"], methods=["wallet_sendCalls"], budget_wei_per_day=100)
ACCOUNT = "0x00000000000000000000000000000000000000aA"


def _request(project: str = "demo", chain: str = "eip155:31337", method: str = "wallet_sendCalls", cost: int = 10) -> SponsorRequest:
    return SponsorRequest(project, chain, method, ACCOUNT, cost)


def test_only_the_policys_projects_chains_and_methods_are_sponsored() -> None:
    assert decide(POLICY, _request(), 0) == Sponsor(10)
    assert decide(POLICY, _request(project="other"), 0) == NotSponsored("project")
    assert decide(POLICY, _request(chain="eip155:31338"), 0) == NotSponsored("chain")
    assert decide(POLICY, _request(method="eth_sendTransaction"), 0) == NotSponsored("method")
    assert decide(None, _request(), 0) == NotSponsored("no_policy")


def test_a_spent_budget_refuses_unless_the_account_may_pay() -> None:
    assert decide(POLICY, _request(cost=10), 90) == Sponsor(10)
    assert decide(POLICY, _request(cost=11), 90) == BudgetSpent(90, 100)
    paying = POLICY.model_copy(update={"when_budget_spent": "account_pays"})
    assert decide(paying, _request(cost=11), 90) == NotSponsored("budget")
    unlimited = POLICY.model_copy(update={"budget_wei_per_day": 0})
    assert decide(unlimited, _request(cost=10**30), 10**30) == Sponsor(10**30)
