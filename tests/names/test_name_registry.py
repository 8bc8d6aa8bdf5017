"""The engine's name registry (services/backend/name_registry.py) on its own: what it stores and every
way a registration is refused (behaviour.md §8 'Error registering name {name}', or the behaviour.md §5 rule's
words), with real eth-account signatures; a refusal stores nothing."""

from __future__ import annotations

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct
from eth_account.signers.local import LocalAccount

from modalcore.rules.names import registration_message
from modalcore.services.backend.name_registry import MESSAGE_MAX_AGE_MS, NameRegistry, RegistrationError

ALICE = Account.from_key("0x" + "11" * 32)
MALLORY = Account.from_key("0x" + "22" * 32)
NOW = 1_800_000_000_000
FAILED = "Error registering name satoshi.reown.id"


def signed(text: str, account: LocalAccount = ALICE) -> str:
    signature: bytes = Account.sign_message(encode_defunct(text=text), account.key).signature
    return "0x" + signature.hex().removeprefix("0x")


@pytest.fixture
def registry() -> NameRegistry:
    return NameRegistry(":memory:", "reown.id")  # the suffix given without its dot


def test_the_message_is_the_hosted_apis_shape() -> None:
    assert registration_message("Satoshi.reown.id", 1_700_000_000_999) == (
        '{"name":"satoshi.reown.id","attributes":{},"timestamp":1700000000}')


async def test_a_valid_registration_is_stored_lower_cased_with_the_suffix(registry: NameRegistry) -> None:
    message = registration_message("satoshi.reown.id", NOW)
    done = await registry.register("Satoshi", ALICE.address, message, signed(message), NOW)
    assert (done.name, done.address) == ("satoshi.reown.id", ALICE.address)
    assert registry.address_of("SATOSHI.reown.id") == ALICE.address
    assert registry.name_of(ALICE.address.lower()) == "satoshi.reown.id"
    assert not registry.available("satoshi") and registry.available("nakamoto")
    assert registry.suggestions("satoshi") == ["satoshi-1.reown.id", "satoshi-2.reown.id", "satoshi-eth.reown.id"]


@pytest.mark.parametrize("case", ["other signer", "other address", "other name", "too old", "from the future",
                                  "not json", "short signature", "not hex", "zero signature"])
async def test_a_registration_that_does_not_check_out_is_refused_and_nothing_is_stored(
    registry: NameRegistry, case: str
) -> None:
    name, address, when = "satoshi.reown.id", ALICE.address, NOW
    message = registration_message(name, when)
    signature = signed(message)
    if case == "other signer":
        signature = signed(message, MALLORY)
    elif case == "other address":  # alice's signature, offered for mallory's address
        address = MALLORY.address
    elif case == "other name":
        message = registration_message("nakamoto.reown.id", when)
        signature = signed(message)
    elif case == "too old":
        message = registration_message(name, NOW - MESSAGE_MAX_AGE_MS - 1000)
        signature = signed(message)
    elif case == "from the future":
        message = registration_message(name, NOW + MESSAGE_MAX_AGE_MS + 1000)
        signature = signed(message)
    elif case == "not json":
        message = "register satoshi.reown.id"
        signature = signed(message)
    elif case == "short signature":
        signature = "0x1234"
    elif case == "not hex":
        signature = "zz"
    elif case == "zero signature":
        signature = "0x" + "00" * 65
    with pytest.raises(RegistrationError, match=f"^{FAILED}$"):
        await registry.register("satoshi", address, message, signature, NOW)
    assert registry.names() == []


async def test_a_taken_name_is_refused_and_the_first_owner_keeps_it(registry: NameRegistry) -> None:
    first = registration_message("satoshi.reown.id", NOW)
    await registry.register("satoshi", ALICE.address, first, signed(first), NOW)
    second = registration_message("satoshi.reown.id", NOW)
    with pytest.raises(RegistrationError, match=f"^{FAILED}$"):
        await registry.register("satoshi", MALLORY.address, second, signed(second, MALLORY), NOW)
    assert [(r.name, r.address) for r in registry.names()] == [("satoshi.reown.id", ALICE.address)]


async def test_names_survive_a_restart(tmp_path: object) -> None:
    path = f"{tmp_path}/names.db"
    registry = NameRegistry(path)
    message = registration_message("satoshi.reown.id", NOW)
    await registry.register("satoshi", ALICE.address, message, signed(message), NOW)
    registry.close()
    again = NameRegistry(path)
    assert again.name_of(ALICE.address) == "satoshi.reown.id"
    again.close()
