"""Sending to a name (behaviour.md §3 receiverProfileName, §7 name lookup) against real Hardhat nodes
with ENS: the receiver field takes `carol.eth`, the engine resolves it, the form and the
preview show the address before anything is signed, and the transaction moves exactly the
amount to that address; a name that resolves to nothing is refused in words and nothing is
signed."""

from __future__ import annotations

import asyncio

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.rules.names import no_address_for, registration_message
from modalcore.services.backend.name_registry import NameRegistry
from modalcore.slices.send_name import DEBOUNCE_MS
from modalcore.views.parts import truncate_address

from .chain_harness import DEV_KEYS, ChainHarness

pytestmark = pytest.mark.chain


def fill(h: ChainHarness, amount: str, receiver: str) -> None:
    h.host("open")
    h.press("account/feature/send")
    h.press("send/token")
    h.press("send/token/native")
    h.intent("send/amount", "change", {"value": amount})
    h.intent("send/receiver", "change", {"value": receiver})


def sent_effects(h: ChainHarness) -> list[dict[str, object]]:
    return [e for e in h.effects() if e["req"].get("method") == "eth_sendTransaction"]


def test_a_send_to_a_name_goes_to_the_address_it_resolves_to(devchain: ChainsInfo) -> None:
    carol = devchain.chain(31337)["accounts"][2]
    h = ChainHarness(devchain, account=1)
    h.connect()
    fill(h, "0.75", "carol.eth")
    h.expect(text="Resolving carol.eth")
    assert h.pending_calls("address_of") == []  # asked only after a pause in typing
    h.advance(DEBOUNCE_MS)
    assert [c.args_data["name"] for c in h.pending_calls("address_of")] == ["carol.eth"]
    h.pump()
    assert h.node("send/receiver-address").p["text"] == carol  # before anything is signed
    h.press("send/preview")
    h.pump()  # the fee estimate (of the transaction to carol)
    assert h.view == "WalletSendPreview", h.model.send.error
    to = h.node("send-preview/to")
    assert (to.p["subtitle"], to.p["trailing"]) == ("carol.eth", truncate_address(carol))
    assert sent_effects(h) == []
    sender_before, carol_before = h.balance(h.address), h.balance(carol)
    h.press("send-preview/send")
    h.pump()
    assert len(h.sent) == 1
    amount = 75 * 10**16
    receipt = h.rpc("eth_getTransactionReceipt", [h.sent[0]])
    gas = int(receipt["gasUsed"], 16) * int(receipt["effectiveGasPrice"], 16)
    assert h.balance(carol) - carol_before == amount
    assert sender_before - h.balance(h.address) == amount + gas
    tx = h.rpc("eth_getTransactionByHash", [h.sent[0]])
    assert (tx["to"].lower(), int(tx["value"], 16)) == (carol.lower(), amount)


def test_an_unknown_name_is_refused_and_nothing_is_signed(devchain: ChainsInfo) -> None:
    h = ChainHarness(devchain, account=1)
    h.connect()
    fill(h, "0.75", "nobody.eth")
    h.advance(DEBOUNCE_MS)
    h.pump()
    h.press("send/preview")
    h.pump()
    assert h.view == "WalletSend"
    assert h.node("send/error").p["text"] == no_address_for("nobody.eth") == "No address found for nobody.eth"
    assert h.find("send/receiver-address") is None
    assert sent_effects(h) == [] and h.calls("estimate_fee") == []


def test_a_name_from_the_engines_registry_resolves_too(devchain: ChainsInfo) -> None:
    registry = NameRegistry(":memory:", ".reown.id")
    dave = devchain.chain(31337)["accounts"][3]
    message = registration_message("dave.reown.id", 1_000)  # dave registered it earlier
    signature = Account.sign_message(encode_defunct(text=message), DEV_KEYS[3]).signature.hex()
    asyncio.run(registry.register("dave", dave, message, signature, 1_000))
    h = ChainHarness(devchain, account=1, registry=registry)
    h.connect()
    fill(h, "0.5", "Dave.reown.id")
    h.advance(DEBOUNCE_MS)
    h.pump()
    assert h.node("send/receiver-address").p["text"] == dave


def test_a_resolved_name_is_not_asked_again_within_five_minutes(devchain: ChainsInfo) -> None:
    h = ChainHarness(devchain, account=1)
    h.connect()
    fill(h, "0.5", "carol.eth")
    h.advance(DEBOUNCE_MS)
    h.pump()
    asked = len(h.calls("address_of"))
    h.intent("send/receiver", "change", {"value": "carol.et"})
    h.intent("send/receiver", "change", {"value": "carol.eth"})
    h.advance(DEBOUNCE_MS)
    assert h.node("send/receiver-address").p["text"] == devchain.chain(31337)["accounts"][2]
    assert len(h.calls("address_of")) == asked
