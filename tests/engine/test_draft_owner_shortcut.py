"""`Model.owns_drafts_of` (the Send/Swap/OnRamp observers' "same draft owner?", run after every
update) answers at once when the networks and accounts slices are the same objects, and otherwise
compares the owners (`draft_owner`): a new account or network is never taken for the same owner."""

from __future__ import annotations

from modalcore.core.evolve import replace
from modalcore.slices.accounts import AccountState
from modalcore_dev.bench.engine_bench import new_session

OWNER = "0x1111111111111111111111111111111111111111"
OTHER = "0x2222222222222222222222222222222222222222"


def _connected(address: str) -> AccountState:
    return AccountState(status="connected", address=address)


def test_rule_the_same_slices_are_the_same_owner() -> None:
    model = new_session().model
    assert model.owns_drafts_of(replace(model, counter=model.counter + 1))


def test_rule_another_account_or_network_is_another_owner() -> None:
    model = new_session().model
    namespace = model.networks.active_namespace
    assert namespace is not None
    mine = replace(model, accounts=model.accounts.with_account(namespace, _connected(OWNER)))
    theirs = replace(mine, accounts=mine.accounts.with_account(namespace, _connected(OTHER)))
    assert not mine.owns_drafts_of(theirs) and not theirs.owns_drafts_of(mine)
    elsewhere = replace(mine, networks=replace(mine.networks, active="eip155:31338"))
    assert not mine.owns_drafts_of(elsewhere)


def test_rule_equal_slices_that_are_new_objects_are_the_same_owner() -> None:
    model = new_session().model
    namespace = model.networks.active_namespace
    assert namespace is not None
    mine = replace(model, accounts=model.accounts.with_account(namespace, _connected(OWNER)))
    again = replace(mine, accounts=mine.accounts.with_account(namespace, _connected(OWNER)),
                    networks=replace(mine.networks))
    assert again.accounts is not mine.accounts and again.networks is not mine.networks
    assert mine.owns_drafts_of(again) and mine.draft_owner() == again.draft_owner()
