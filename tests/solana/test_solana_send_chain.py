"""Solana sends through a session against the local Solana dev chain (LiteSVM behind JSON-RPC):
the engine's real services prepare and submit, a dev keypair signs as the wallet does; balances
before and after are exact to the lamport, the fee included."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import TypeVar

import httpx
from solders.keypair import Keypair
from solders.transaction import Transaction

from modalcore.rules.format import floor3
from modalcore.services.backend.solana_rpc import SolanaRpc
from modalcore.slices.send_form import ChangedSendAmount, ChangedSendReceiver, SelectedSendToken
from modalcore.slices.send_tx import PressedSend
from modalcore_dev.solana_devchain.accounts import DEV_TOKEN, dev_keypair
from modalcore_dev.solana_devchain.process import SolanaDevchain

from .harness import connect, run_service, settle, sign_pending, solana_harness
from .helpers import SOL, b64, signed_spl_transfer

T = TypeVar("T")
FEE = 5000  # lamports per signature


def rpc_run(url: str, step: Callable[[SolanaRpc], Awaitable[T]]) -> T:
    async def go() -> T:
        async with httpx.AsyncClient() as http:
            return await step(SolanaRpc(http, url))
    return asyncio.run(go())


def funded(url: str, lamports: int = 5 * SOL) -> Keypair:
    keypair = Keypair()
    rpc_run(url, lambda rpc: rpc.request_airdrop(str(keypair.pubkey()), lamports))
    return keypair


def balance(url: str, address: str) -> int:
    return rpc_run(url, lambda rpc: rpc.balance(address))


def tokens(url: str, address: str) -> dict[str, int]:
    return rpc_run(url, lambda rpc: rpc.token_balances(address))


def test_send_sol_exact_to_the_lamport_and_the_account_shows_it(solana_devchain: SolanaDevchain) -> None:
    url = solana_devchain.rpc_url
    wallet = funded(url, 3 * SOL)
    receiver = str(Keypair().pubkey())
    h = solana_harness(url)
    connect(h, wallet)
    settle(h, "solana_balances")
    h.host("open")
    assert h.node("account/balance").p["text"] == "3.000 SOL"
    h.deliver(SelectedSendToken("native"))
    h.deliver(ChangedSendAmount("1.234567891"))
    h.deliver(ChangedSendReceiver(receiver))
    h.deliver(PressedSend())
    settle(h, "solana_prepare_send")
    sign_pending(h, wallet)
    result = settle(h, "solana_submit_send")
    assert result["confirmed"] is True
    assert balance(url, str(wallet.pubkey())) == 3 * SOL - 1_234_567_891 - FEE
    assert balance(url, receiver) == 1_234_567_891
    assert h.model.send.pending is None and h.model.send.error is None
    settle(h, "solana_balances")  # the balance refreshes after a send
    expected = floor3(Decimal(3 * SOL - 1_234_567_891 - FEE) / Decimal(SOL))
    assert h.node("account/balance").p["text"] == f"{expected} SOL"


def test_send_spl_exact_including_the_new_token_account(solana_devchain: SolanaDevchain) -> None:
    url = solana_devchain.rpc_url
    wallet = funded(url, 2 * SOL)
    mint = str(DEV_TOKEN.mint)
    rpc_run(url, lambda rpc: _give_tokens(rpc, wallet, 40 * 10**6))
    receiver = str(Keypair().pubkey())
    sol_before = balance(url, str(wallet.pubkey()))
    h = solana_harness(url)
    connect(h, wallet)
    settle(h, "solana_balances")
    h.deliver(SelectedSendToken(mint))
    h.deliver(ChangedSendAmount("12.5"))
    h.deliver(ChangedSendReceiver(receiver))
    h.deliver(PressedSend())
    settle(h, "solana_prepare_send")
    sign_pending(h, wallet)
    assert settle(h, "solana_submit_send")["confirmed"] is True
    rent = rpc_run(url, lambda rpc: rpc.minimum_balance_for_rent_exemption(165))
    assert balance(url, str(wallet.pubkey())) == sol_before - FEE - rent  # the sender opens the receiver's account
    assert tokens(url, str(wallet.pubkey())) == {mint: 40 * 10**6 - 12_500_000}
    assert tokens(url, receiver) == {mint: 12_500_000}
    settle(h, "solana_balances")
    assert h.model.accounts.get("solana").token_balance[1].quantity_numeric == "27.5"


async def _give_tokens(rpc: SolanaRpc, to: Keypair, amount: int) -> str:
    tx = await signed_spl_transfer(rpc, dev_keypair(0), to.pubkey(), DEV_TOKEN.mint, amount, DEV_TOKEN.decimals)
    return await rpc.send_transaction(b64(tx))


def test_a_first_transfer_below_the_rent_minimum_is_refused_before_the_wallet(solana_devchain: SolanaDevchain) -> None:
    url = solana_devchain.rpc_url
    wallet = funded(url, SOL)
    h = solana_harness(url)
    connect(h, wallet)
    settle(h, "solana_balances")
    h.deliver(SelectedSendToken("native"))
    h.deliver(ChangedSendAmount("0.0005"))
    h.deliver(ChangedSendReceiver(str(Keypair().pubkey())))
    h.deliver(PressedSend())
    settle(h, "solana_prepare_send")
    assert h.model.send.error == "A new account needs at least 0.00089088 SOL"
    assert not [e for e in h.pending_effects() if e["req"].get("method") == "solana:signTransaction"]
    assert balance(url, str(wallet.pubkey())) == SOL


def test_a_transaction_signed_by_another_key_is_not_submitted(solana_devchain: SolanaDevchain) -> None:
    url = solana_devchain.rpc_url
    wallet = funded(url, SOL)
    receiver = str(Keypair().pubkey())
    h = solana_harness(url)
    connect(h, wallet)
    settle(h, "solana_balances")
    h.deliver(SelectedSendToken("native"))
    h.deliver(ChangedSendAmount("0.5"))
    h.deliver(ChangedSendReceiver(receiver))
    h.deliver(PressedSend())
    settle(h, "solana_prepare_send")
    effect = h.pending_effect("solana:signTransaction")
    tx = Transaction.from_bytes(base64.b64decode(effect["req"]["params"]["transaction"]))
    other = Keypair()
    forged = Transaction.populate(tx.message, [other.sign_message(bytes(tx.message))])
    h.answer("solana:signTransaction", {"transaction": base64.b64encode(bytes(forged)).decode()})
    settle(h, "solana_submit_send")
    assert h.model.send.error == "The wallet did not sign the transaction it was asked to sign"
    assert balance(url, str(wallet.pubkey())) == SOL
    assert balance(url, receiver) == 0


def test_the_fee_estimate_is_what_the_chain_charges(solana_devchain: SolanaDevchain) -> None:
    ok, fee = run_service("solana_estimate_fee", {
        "rpc_url": solana_devchain.rpc_url, "sender": str(dev_keypair(1).pubkey()),
        "receiver": str(Keypair().pubkey()), "mint": None, "amount": SOL, "decimals": 9})
    assert ok and fee == {"fee": FEE, "gas": 0, "gas_price": 0}
