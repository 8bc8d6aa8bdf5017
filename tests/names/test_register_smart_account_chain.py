"""Register name from the embedded smart account (issue 32 item 3, behaviour.md §4 "Name registration"),
on the dev chain with a real bundler: the registration message is signed for the account shown,
the smart account, so the signature is its owner's, ERC-6492-wrapped while the account is not
deployed and plain (ERC-1271) once it is. The engine's name registry checks it as a SIWX sign-in
is checked (through the chain's RPC) and stores the name for the smart account; Account shows
it. A signature by another key, for the smart account, deployed or not, is refused and nothing
is stored."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.aa.userop import counterfactual_address, factory_data, wrap_6492
from modalcore.rules.names import registration_message
from modalcore.services.backend.name_registry import NameRegistry, Refused, RegistrationError
from modalcore.services.backend.names import name_services
from modalcore.siwx.backend.verify import is_erc6492
from modalcore.slices.embedded import ApprovalDecided, EmbeddedSigned
from modalcore.slices.register_name import DEBOUNCE_MS
from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.devmail import LocalSmtpServer

from tests.embedded.test_smart_account_chain import _approve_send, _code, _rpc, config_for
from tests.embedded.world import EmailWorld, open_wallet, smtp

__all__ = ["smtp"]  # the fixture this module uses
pytestmark = pytest.mark.chain
CHAIN = 31337
RECEIVER = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"  # dev account 5


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[NameRegistry]:
    store = NameRegistry(str(tmp_path / "names.db"), ".reown.id")
    yield store
    store.close()


def _world(aa: AaChains, tmp_path: Path, smtp: LocalSmtpServer, registry: NameRegistry, email: str) -> EmailWorld:
    config = config_for(aa, sponsored_projects=["test"])
    world = EmailWorld(open_wallet(tmp_path / "e.db", smtp), smtp, config=config,
                       known_networks=config.known_networks(), options={"networks": [f"eip155:{CHAIN}"]})
    world.http = httpx.AsyncClient()
    world.services.update(name_services(world.http, registry, clock_ms=lambda: world.h.now))
    world.submit_email(email)
    world.type_code(world.code_for(email))
    world.settle_all()
    return world


def _register(world: EmailWorld, label: str) -> str:
    """Register name → `label` → Register → Approve in the frame; the signature the engine made."""
    world.h.host("open")
    world.h.press("account/register-name")
    world.h.intent("register-name/input", "change", {"value": label})
    world.h.advance(DEBOUNCE_MS)
    world.settle_all()
    world.h.expect(text=f"{label}.reown.id is available")
    world.h.press("register-name/submit")
    world.settle_all()
    request = world.h.model.embedded.request
    assert request is not None and request.method == "personal_sign" and world.h.view == "ApproveTransaction"
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    settled = world.run_calls()
    signature = next(s.result["result"] for s in settled if s.to.reply is EmbeddedSigned)
    world.settle_all()  # register_name: the registry checks it through the chain's RPC
    return str(signature)


def _shows(world: EmailWorld, name: str) -> None:
    assert world.h.view == "RegisterAccountNameSuccess", world.h.view
    world.h.press("register-success/ok")
    assert world.h.node("account/address").p["text"] == name


def test_rule_an_undeployed_smart_account_registers_a_name_by_erc6492(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer, registry: NameRegistry) -> None:
    world = _world(aachains, tmp_path, smtp, registry, "nia@example.com")
    smart = world.h.model.accounts.get("eip155").address
    assert smart is not None and smart != world.h.model.smart.owner
    signature = _register(world, "nia-smart")
    assert is_erc6492(bytes.fromhex(signature[2:]))
    assert registry.address_of("nia-smart.reown.id") == smart
    assert _code(aachains, smart) == "0x"  # checked without deploying it
    _shows(world, "nia-smart.reown.id")


def test_rule_a_deployed_smart_account_registers_a_name_by_erc1271(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer, registry: NameRegistry) -> None:
    world = _world(aachains, tmp_path, smtp, registry, "nid@example.com")
    smart = world.h.model.accounts.get("eip155").address
    assert smart is not None
    _rpc(aachains, "hardhat_setBalance", [smart, hex(10**18)])
    _approve_send(world, RECEIVER, 1)  # its first operation deploys it
    assert _code(aachains, smart) != "0x"
    signature = _register(world, "nid-smart")
    assert not is_erc6492(bytes.fromhex(signature[2:])) and len(signature) == 132
    assert registry.address_of("nid-smart.reown.id") == smart
    _shows(world, "nid-smart.reown.id")
    # another key's signature for the deployed account: its ERC-1271 refuses, nothing stored
    message = registration_message("nid-other.reown.id", world.h.now)
    theirs = Account.sign_message(encode_defunct(text=message), Account.create().key).signature
    with pytest.raises(RegistrationError) as refused:
        world.loop.run_until_complete(registry.register(
            "nid-other", smart, message, "0x" + bytes(theirs).hex(), world.h.now,
            rpc_url=aachains.chains.rpc_urls[CHAIN], http=world.http))
    assert refused.value.reason is Refused.SIGNATURE
    assert registry.address_of("nid-other.reown.id") is None


async def test_rule_another_keys_signature_for_a_smart_account_is_refused_and_nothing_stored(
        aachains: AaChains, registry: NameRegistry) -> None:
    deployment = aachains.smart_accounts(CHAIN)
    factory = deployment["factory"]
    owner, mallory = Account.create(), Account.create()
    smart = counterfactual_address(factory, owner.address)
    message = registration_message("victim.reown.id", 1_800_000_000_000)
    theirs = bytes(Account.sign_message(encode_defunct(text=message), mallory.key).signature)
    rpc = aachains.chains.rpc_urls[CHAIN]
    attempts = {
        "mallory's signature wrapped with the owner's factory call": wrap_6492(factory, factory_data(owner.address), theirs),
        "mallory's signature wrapped with her own account's factory call": wrap_6492(factory, factory_data(mallory.address), theirs),
        "mallory's plain signature": theirs,
    }
    async with httpx.AsyncClient() as http:
        for case, signature in attempts.items():
            with pytest.raises(RegistrationError, match="^Error registering name victim.reown.id$") as refused:
                await registry.register("victim", smart, message, "0x" + signature.hex(), 1_800_000_000_000,
                                        rpc_url=rpc, http=http)
            assert refused.value.reason is Refused.SIGNATURE, case
    assert registry.names() == []
    assert json.dumps(_rpc(aachains, "eth_getCode", [smart, "latest"])) == '"0x"'
