"""Name lookups in a session, sans I/O (Harness, the services answered by the test): behaviour.md §9
5-minute lifetime with time passed in, failures fall back to the truncated address without a
snackbar, at most L.MAX_NAME_LOOKUPS addresses looked up, none on a network without a name
service, and a new account never shows the previous account's name."""

from __future__ import annotations

from dataclasses import replace

from modalcore import samples
from modalcore.chains.catalog import catalog
from modalcore.enginetest import Harness
from modalcore.rules import limits as L
from modalcore.slices.model import initial_model
from modalcore.slices.names import NAME_TTL_MS
from modalcore.slices.options import parse_options
from modalcore.views.parts import truncate_address
from modalcore.wire.frames import AnnouncedWallet, Env

REGISTRY = "0x" + "e1" * 20


def harness(ens: str = REGISTRY) -> Harness:
    networks = catalog([replace(catalog()["eip155:31337"], rpc_urls=("http://127.0.0.1:1",), ens_registry=ens)])
    model = initial_model("p", "http://localhost:8000", parse_options({"networks": ["eip155:31337"]}), Env(),
                          [AnnouncedWallet.model_validate(samples.DEV_WALLET)], networks)
    h = Harness(model, now=1_000_000, wallets=[samples.DEV_WALLET])
    h.connect_wallet()
    return h


def lookups(h: Harness) -> list[str]:
    return [c.args_data["address"] for c in h.pending_calls("name_of")]


def test_the_connected_account_is_looked_up_with_the_networks_registry() -> None:
    h = harness()
    (call,) = h.pending_calls("name_of")
    assert call.args_data == {"chain_id": 31337, "rpc_url": "http://127.0.0.1:1", "registry": REGISTRY,
                         "address": samples.DEV_ADDRESS.lower()}
    h.settle_call("name_of", {"name": "alice.eth"})
    assert h.host_state("account")["display"] == "alice.eth"


def test_a_failed_lookup_shows_the_truncated_address_and_waits_a_lifetime() -> None:
    h = harness()
    h.settle_call("name_of", ok=False, error="Error fetching names for address")
    assert h.host_state("account")["display"] == truncate_address(samples.DEV_ADDRESS)
    assert not any(f["t"] == "patch" and "Error fetching" in str(f) for f in h.frames)  # no snackbar
    h.advance(NAME_TTL_MS - 1)
    h.host("open")
    assert lookups(h) == []
    h.advance(1)
    h.host("close")
    assert lookups(h) == [samples.DEV_ADDRESS.lower()]


def test_a_failure_keeps_a_name_learnt_before() -> None:
    h = harness()
    h.settle_call("name_of", {"name": "alice.eth"})
    h.advance(NAME_TTL_MS)
    h.host("open")
    h.settle_call("name_of", ok=False, error="Error fetching names for address")
    assert h.host_state("account")["display"] == "alice.eth"


def test_activity_counterparties_are_looked_up_within_the_bound() -> None:
    h = harness()
    h.settle_call("name_of", {"name": None})
    h.host("open")
    h.intent("account/tabs", "select", {"value": "2"})
    txs = [samples.transaction(f"0x{i:064x}", sent_to=f"0x{i + 1:040x}") for i in range(40)]
    h.settle_call("history", samples.history(*txs))
    assert len(lookups(h)) == L.MAX_NAME_LOOKUPS - 1  # the account's own name is known already
    newest = lookups(h)[-1]
    h.settle_call("name_of", {"name": "bob.eth"})  # the newest pending: the last one in the bound
    assert newest == f"0x{L.MAX_NAME_LOOKUPS - 1:040x}"
    assert any(n.p.get("subtitle") == "To bob.eth" for n in h.of_type("activity-item"))


def test_no_lookup_on_a_network_without_a_name_service() -> None:
    h = harness(ens="")
    assert lookups(h) == []
    assert h.host_state("account")["display"] == truncate_address(samples.DEV_ADDRESS)


def test_another_account_never_shows_the_previous_accounts_name() -> None:
    h = harness()
    h.settle_call("name_of", {"name": "alice.eth"})
    h.wallet_event(samples.DEV_WALLET["uuid"], "accountsChanged",
                   [samples.SECOND_ADDRESS.lower()])
    assert str(h.model.accounts.get("eip155").address).lower() == samples.SECOND_ADDRESS.lower()
    assert h.host_state("account")["display"] == truncate_address(samples.SECOND_ADDRESS)
    assert lookups(h) == [samples.SECOND_ADDRESS.lower()]
