"""Names for addresses in the Account view, the connect button and Activity (behaviour.md §3
profileName, §7 name lookup, §9 ENS 5 minutes), against real Hardhat nodes with ENS: a dev
account's reverse record (checked forward) is what the visitor sees; an address without one
shows truncated; drawing never waits for a name."""

from __future__ import annotations

import asyncio

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.rules.names import registration_message
from modalcore.services.backend.name_registry import NameRegistry
from modalcore.slices.names import NAME_TTL_MS
from modalcore.views.parts import truncate_address

from .chain_harness import DEV_KEYS, ChainHarness

pytestmark = pytest.mark.chain


def test_a_dev_accounts_ens_name_shows_in_account_and_on_the_connect_button(devchain: ChainsInfo) -> None:
    h = ChainHarness(devchain, account=0)
    h.connect()
    h.host("open")
    assert h.view == "Account"
    assert h.node("account/address").p["text"] == "alice.eth"
    assert h.host_state("account")["display"] == "alice.eth"
    assert h.model.accounts.get("eip155").profile_name == "alice.eth"


def test_an_address_without_a_name_shows_truncated(devchain: ChainsInfo) -> None:
    h = ChainHarness(devchain, account=3)
    h.connect()
    h.host("open")
    shown = truncate_address(h.address)
    assert h.node("account/address").p["text"] == shown
    assert h.host_state("account")["display"] == shown


def test_drawing_does_not_wait_for_the_name_and_the_lookup_is_a_call(devchain: ChainsInfo) -> None:
    h = ChainHarness(devchain, account=1)
    h.host("open")
    item = next(n for n in h.find_text("Dev Wallet", exact=True) if n.t == "wallet-item")
    h.press(item.id)
    h.answer("eth_requestAccounts", [h.address.lower()])
    h.answer("eth_chainId", h.chain_hex)
    h.host("open")
    # connected and drawn; the name is still being looked up
    lookups = h.pending_calls("name_of")
    assert [c.args_data["address"] for c in lookups] == [h.address.lower()]
    assert h.node("account/address").p["text"] == truncate_address(h.address)
    h.pump()
    assert h.node("account/address").p["text"] == "bob.eth"


def test_a_name_is_looked_up_again_only_after_five_minutes(devchain: ChainsInfo) -> None:
    h = ChainHarness(devchain, account=0)
    h.connect()
    asked = len(h.calls("name_of"))
    h.advance(NAME_TTL_MS - 1)
    h.host("open")
    assert len(h.calls("name_of")) == asked
    h.advance(1)
    h.host("close")
    assert len(h.calls("name_of")) == asked + 1
    h.pump()
    assert h.host_state("account")["display"] == "alice.eth"


def test_activity_rows_show_the_counterpartys_name(devchain: ChainsInfo) -> None:
    h = ChainHarness(devchain, account=0)
    bob = devchain.chain(31337)["accounts"][1]
    h.rpc("eth_sendTransaction", [{"from": h.address, "to": bob, "value": hex(10**15)}])
    h.connect()
    h.host("open")
    activity = next(n for n in h.of_type("tabs") if n.id == "account/tabs")
    h.intent(activity.id, "select", {"value": "2"})
    h.pump()
    subtitles = [n.p["subtitle"] for n in h.of_type("activity-item")]
    assert "To bob.eth" in subtitles


def test_a_name_in_the_engines_registry_shows_for_its_address(devchain: ChainsInfo) -> None:
    """Reverse lookups include the engine's own registry (before ENS)."""
    registry = NameRegistry(":memory:", ".reown.id")
    dave = devchain.chain(31337)["accounts"][3]
    message = registration_message("dave.reown.id", 1_000)
    signature = Account.sign_message(encode_defunct(text=message), DEV_KEYS[3]).signature.hex()
    asyncio.run(registry.register("dave", dave, message, signature, 1_000))
    h = ChainHarness(devchain, account=3, registry=registry)
    h.connect()
    h.host("open")
    assert h.node("account/address").p["text"] == "dave.reown.id"
    assert h.host_state("account")["display"] == "dave.reown.id"
