"""Registering an account name in the engine's own registry (behaviour.md §2 RegisterAccountName /
RegisterAccountNameSuccess, §4 "Name registration", §5 name rule and gate, §8 name errors),
driven through a session whose wallet is a real dev account signing for real (eth-account) and
whose registry is SQLite: a valid signature stores the name and Account shows it; a forged
signature, a taken name, a 3-character name and a name with other characters are refused with
the exact messages and nothing is stored."""

from __future__ import annotations

import asyncio

from collections.abc import Iterator

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.rules.names import BAD_CHARACTERS, NO_ADDRESS_OR_AUTH, TOO_SHORT, registration_message
from modalcore.services.backend.name_registry import NameRegistry, RegistrationError
from modalcore.slices.navigation import PressedNavigate
from modalcore.slices.register_name import DEBOUNCE_MS

from .chain_harness import AUTH_WALLET, DEV_WALLET, ChainHarness

pytestmark = pytest.mark.chain


@pytest.fixture
def registry() -> Iterator[NameRegistry]:
    store = NameRegistry(":memory:", ".reown.id")
    yield store
    store.close()


def registering(info: ChainsInfo, registry: NameRegistry, account: int = 3) -> ChainHarness:
    h = ChainHarness(info, account, registry=registry, wallets=(AUTH_WALLET, DEV_WALLET))
    h.connect("Email Wallet")
    assert h.model.accounts.get("eip155").connector_id == "ID_AUTH"
    h.host("open")
    h.press("account/register-name")
    assert h.view == "RegisterAccountName"
    return h


def type_name(h: ChainHarness, text: str) -> None:
    h.intent("register-name/input", "change", {"value": text})
    h.advance(DEBOUNCE_MS)
    h.pump()


def test_a_valid_signature_stores_the_name_and_account_shows_it(devchain: ChainsInfo,
                                                                registry: NameRegistry) -> None:
    h = registering(devchain, registry)
    type_name(h, "satoshi")
    h.expect(text="satoshi.reown.id is available")
    h.press("register-name/submit")
    assert h.view == "RegisterAccountNameSuccess"  # pushed first (behaviour.md §4), waiting for the wallet
    h.pump()
    assert h.node("register-success/name").p["text"] == "satoshi.reown.id"
    assert registry.address_of("satoshi.reown.id") == h.address
    assert registry.name_of(h.address) == "satoshi.reown.id"
    h.press("register-success/ok")
    assert h.view == "Account"
    assert h.node("account/address").p["text"] == "satoshi.reown.id"
    assert h.host_state("account")["display"] == "satoshi.reown.id"


def test_the_name_is_checked_only_after_a_pause_in_typing(devchain: ChainsInfo, registry: NameRegistry) -> None:
    h = registering(devchain, registry)
    h.intent("register-name/input", "change", {"value": "sato"})
    h.advance(DEBOUNCE_MS - 1)
    h.intent("register-name/input", "change", {"value": "satoshi"})
    h.advance(DEBOUNCE_MS - 1)
    assert h.pending_calls("name_suggestions") == []
    h.expect(text="Checking availability")
    h.advance(1)
    assert [c.args_data for c in h.pending_calls("name_suggestions")] == [{"label": "satoshi"}]


def test_a_forged_signature_is_refused_and_nothing_is_stored(devchain: ChainsInfo, registry: NameRegistry) -> None:
    h = registering(devchain, registry)
    h.forge_signature = True  # another account signs the message
    type_name(h, "satoshi")
    h.press("register-name/submit")
    h.pump()
    assert h.view == "RegisterAccountName"
    assert h.node("register-name/error").p["text"] == "Error registering name satoshi.reown.id"
    assert registry.names() == []


def test_a_taken_name_is_refused_and_nothing_is_stored(devchain: ChainsInfo, registry: NameRegistry) -> None:
    first = registering(devchain, registry, account=4)
    type_name(first, "satoshi")
    # account 3 looks at the same name while it is still free
    h = registering(devchain, registry, account=3)
    type_name(h, "satoshi")
    h.expect(text="satoshi.reown.id is available")
    first.press("register-name/submit")
    first.pump()
    taken = registry.names()
    h.press("register-name/submit")
    h.pump()
    assert h.view == "RegisterAccountName"
    assert h.node("register-name/error").p["text"] == "Error registering name satoshi.reown.id"
    assert registry.names() == taken and registry.name_of(h.address) is None
    type_name(h, "satoshi")  # typed again: the registry says it is taken, and offers free ones
    h.expect(text="satoshi.reown.id is taken")
    assert h.find("register-name/suggestion/satoshi-1.reown.id") is not None


@pytest.mark.parametrize(("typed", "message"), [("abc", TOO_SHORT), ("sato shi", BAD_CHARACTERS),
                                                 ("satoshi!", BAD_CHARACTERS), ("sätoshi", BAD_CHARACTERS)])
def test_a_name_against_the_rule_is_refused_with_its_message(devchain: ChainsInfo, registry: NameRegistry,
                                                             typed: str, message: str) -> None:
    h = registering(devchain, registry)
    type_name(h, typed)
    assert h.node("register-name/problem").p["text"] == message
    assert h.pending_calls("name_suggestions") == []
    assert h.node("register-name/submit").p.get("disabled") is True
    h.press("register-name/submit")  # pressed anyway (a stale tree): refused with the same words
    h.pump()
    assert h.view == "RegisterAccountName"
    assert h.node("register-name/error").p["text"] == message
    assert not any(e["req"].get("method") == "personal_sign" for e in h.effects())
    assert registry.names() == []


def test_the_registry_itself_refuses_what_the_rule_refuses(registry: NameRegistry) -> None:
    account = Account.create()
    for label, message in (("abc", TOO_SHORT), ("a_bc", BAD_CHARACTERS)):
        text = registration_message(f"{label}.reown.id", 1_000)
        signature = Account.sign_message(encode_defunct(text=text), account.key).signature.hex()
        with pytest.raises(RegistrationError, match=f"^{message}$"):
            asyncio.run(registry.register(label, account.address, text, signature, 1_000))
    assert registry.names() == []


def test_registration_needs_the_auth_connector(devchain: ChainsInfo, registry: NameRegistry) -> None:
    h = ChainHarness(devchain, 3, registry=registry)
    h.connect("Dev Wallet")
    h.host("open")
    assert h.find("account/register-name") is None
    h.deliver(PressedNavigate("RegisterAccountName"))  # reached anyway
    assert h.node("register-name/gate").p["text"] == NO_ADDRESS_OR_AUTH
    assert h.find("register-name/input") is None
