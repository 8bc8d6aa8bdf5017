"""Solana send rules (behaviour.md §4 Send, §5 validation), on a session with made-up service results:
the receiver must be base58 of 32 to 44 characters naming a key on the curve, refused before
the wallet is asked; a Solana send pushes a transaction-stack entry with view Account and
goBack false; the engine prepares, the wallet signs, the engine submits."""

from __future__ import annotations

import pytest

from modalcore.chains.catalog import SOLANA_LOCAL
from modalcore.enginetest import Harness
from modalcore.slices.router import TxEntry
from modalcore.slices.send_form import ChangedSendAmount, ChangedSendReceiver, SelectedSendToken
from modalcore.slices.send_tx import PressedSend

from .harness import solana_harness

SENDER = "SuJsQsCbtNtogXTXfXKnuqSeyde72ryvUz3JhqPKRKg"
RECEIVER = "7gdEaDqQHDKZo7HkGCpDqh6o7iuLuRyBvgkWSegNDNZk"
DUSD = "DT7iqkXzuftKJvyjkgx35cJNRQZmw246qtHqnetM1bJV"
MESSAGE = "AQABAw=="


def ready(amount: str = "0.25", receiver: str = RECEIVER, token: str = "native") -> Harness:
    h = solana_harness("http://127.0.0.1:9", networks=(SOLANA_LOCAL,))
    h.host("open")
    [item] = [n for n in h.find_text("Solana Dev Wallet", exact=True) if n.t == "wallet-item"]
    h.press(item.id)
    h.answer("standard:connect", [SENDER])
    h.settle_call("solana_balances", {"native": "2000000000", "tokens": {DUSD: "5000000"}})
    h.deliver(SelectedSendToken(token))
    h.deliver(ChangedSendAmount(amount))
    h.deliver(ChangedSendReceiver(receiver))
    return h


@pytest.mark.parametrize("receiver", [
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",  # an EVM address
    "SuJsQsCbtNtogXTXfXKnuqSeyde72ryvUz3Jhq",  # base58 but not 32 bytes
    "SuJsQsCbtNtogXTXfXKnuqSeyde72ryvUz3JhqPKRKgSuJsQs",  # over 44 characters
    "0OIl" * 10,  # characters outside base58
    "5t6Zxgh551nei5WMBgh6eoLBXWnsyLsukL1zEgDaSLD",  # a token account: off the curve
])
def test_an_invalid_or_off_curve_receiver_is_refused_before_the_wallet_is_asked(receiver: str) -> None:
    h = ready(receiver=receiver)
    h.deliver(PressedSend())
    assert h.model.send.error == "Invalid address"
    assert h.pending_calls("solana_prepare_send") == []
    assert not [e for e in h.effects() if e["req"].get("method") == "solana:signTransaction"]
    assert h.model.router.tx_stack == ()


def test_amount_and_receiver_are_required() -> None:
    h = ready(amount="", receiver="")
    h.deliver(PressedSend())
    assert h.model.send.error == "An amount and receiver address are required"
    assert h.pending_calls("solana_prepare_send") == []


def test_a_solana_send_is_prepared_signed_submitted_with_an_account_stack_entry() -> None:
    h = ready()
    h.deliver(PressedSend())
    assert h.model.router.tx_stack == (TxEntry(view="Account", go_back=False),)
    assert h.model.send.loading
    [call] = h.pending_calls("solana_prepare_send")
    assert call.args_data == {"rpc_url": "http://127.0.0.1:9", "sender": SENDER, "receiver": RECEIVER,
                         "mint": None, "amount": 250_000_000, "decimals": 9}
    h.settle_call("solana_prepare_send", {"transaction": "AAAA", "message": MESSAGE})
    effect = h.pending_effect("solana:signTransaction")
    assert effect["kind"] == "solana"
    assert effect["req"]["params"] == {"transaction": "AAAA", "account": SENDER, "chain": "solana:localnet"}
    h.answer("solana:signTransaction", {"transaction": "c2lnbmVk"})
    [submit] = h.pending_calls("solana_submit_send")
    assert submit.args_data == {"rpc_url": "http://127.0.0.1:9", "transaction": "c2lnbmVk", "message": MESSAGE}
    h.settle_call("solana_submit_send", {"signature": "sig", "confirmed": True, "err": None})
    assert len(h.model.router.tx_stack) == 0
    assert not h.model.send.loading and h.model.send.amount == "" and h.model.send.pending is None
    assert h.pending_calls("solana_balances")  # the balance refreshes
    assert "Transaction sent" in h.texts()


def test_an_spl_send_names_the_mint_and_its_decimals() -> None:
    h = ready(amount="1.5", token=DUSD)
    h.deliver(PressedSend())
    [call] = h.pending_calls("solana_prepare_send")
    assert call.args_data["mint"] == DUSD and call.args_data["amount"] == 1_500_000 and call.args_data["decimals"] == 6


def test_a_rejected_signature_leaves_the_form_and_pops_the_entry() -> None:
    h = ready()
    h.deliver(PressedSend())
    h.settle_call("solana_prepare_send", {"transaction": "AAAA", "message": MESSAGE})
    h.answer("solana:signTransaction", code=4001, message="User rejected the request.")
    assert h.model.send.error == "Transaction declined in the wallet"
    assert h.model.send.amount == "0.25" and h.model.router.tx_stack == ()
    assert h.pending_calls("solana_submit_send") == []


def test_a_refused_submission_shows_why() -> None:
    h = ready()
    h.deliver(PressedSend())
    h.settle_call("solana_prepare_send", {"transaction": "AAAA", "message": MESSAGE})
    h.answer("solana:signTransaction", {"transaction": "c2lnbmVk"})
    h.settle_call("solana_submit_send", ok=False,
                  error="The wallet did not sign the transaction it was asked to sign")
    assert h.model.send.error == "The wallet did not sign the transaction it was asked to sign"
    assert h.model.send.pending is None and h.model.router.tx_stack == ()



def test_the_preview_asks_the_solana_fee_and_shows_it_in_sol() -> None:
    h = ready()
    h.host("open")
    h.press("account/feature/send")
    assert h.view == "WalletSend"
    h.press("send/preview")
    assert h.view == "WalletSendPreview"
    [call] = h.pending_calls("solana_estimate_fee")
    assert call.args_data["receiver"] == RECEIVER and call.args_data["amount"] == 250_000_000
    h.settle_call("solana_estimate_fee", {"fee": 5000, "gas": 0, "gas_price": 0})
    assert h.model.send.fee.fee_wei == "5000"
    assert "0.000005 SOL" in h.node("send-preview/fee/value").p["text"]
