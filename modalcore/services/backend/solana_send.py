"""Solana sends (behaviour.md §4 Send for the solana namespace): the unsigned transaction the wallet is
asked to sign (built with `solders`, modalcore/solana/transfers.py), its network fee
(getFeeForMessage), and, once the wallet signed it, submitting it (sendTransaction) and
following it until the cluster confirms it (getSignatureStatuses).

The wallet only signs; the engine submits what it prepared. A signed transaction whose message
differs from the prepared one (another receiver, amount or fee payer) or whose signature does
not verify is refused before it reaches the cluster.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from typing import Any

import httpx
from solders.hash import Hash
from solders.pubkey import Pubkey
from solders.transaction import Transaction

from ...core.services import ServiceError
from ...solana.programs import LAMPORTS_PER_SOL
from ...solana.transfers import (
    message_base64, sol_transfer_instructions, spl_transfer_instructions, to_base64, unsigned_transaction)
from .solana_rpc import SolanaRpc
from ..domain.solana_shapes import PreparedSend, SolanaFeeResult, SolanaSendArgs, SolanaSubmitArgs, SubmittedSend

CONFIRM_BUDGET_S = 20.0
CONFIRM_POLL_S = 0.4
CONFIRMED = ("confirmed", "finalized")
NOT_SIGNED = "The wallet did not sign the transaction it was asked to sign"
NOT_CONFIRMED = "The transaction was not confirmed in time"


def _instructions(sender: Pubkey, receiver: Pubkey, mint: str | None, amount: int, decimals: int) -> list[Any]:
    if mint is None:
        return sol_transfer_instructions(sender, receiver, amount)
    return spl_transfer_instructions(sender, receiver, Pubkey.from_string(mint), amount, decimals)


async def _build(rpc: SolanaRpc, sender: str, receiver: str, mint: str | None, amount: int,
                 decimals: int) -> Transaction:
    blockhash, _ = await rpc.latest_blockhash()
    payer = Pubkey.from_string(sender)
    return unsigned_transaction(
        _instructions(payer, Pubkey.from_string(receiver), mint, amount, decimals), payer,
        Hash.from_string(blockhash))


async def estimate_solana_fee(http: httpx.AsyncClient, args: SolanaSendArgs) -> SolanaFeeResult:
    """The fee in lamports, in the shape service `estimate_fee` answers (gas fields 0)."""
    rpc = SolanaRpc(http, args.rpc_url)
    tx = await _build(rpc, args.sender, args.receiver, args.mint, args.amount, args.decimals)
    fee = await rpc.fee_for_message(message_base64(tx))
    if fee is None:
        raise ServiceError("Network fee unavailable")
    return {"fee": fee, "gas": 0, "gas_price": 0}


async def prepare_solana_send(http: httpx.AsyncClient, args: SolanaSendArgs) -> PreparedSend:
    """{"transaction": base64 unsigned transaction, "message": base64 of its message}. A SOL
    send that would open a new account below the rent-exempt minimum is refused here."""
    rpc = SolanaRpc(http, args.rpc_url)
    if args.mint is None and not await rpc.account_exists(args.receiver):
        minimum = await rpc.minimum_balance_for_rent_exemption(0)
        if args.amount < minimum:
            sol = f"{minimum / LAMPORTS_PER_SOL:.9f}".rstrip("0")
            raise ServiceError(f"A new account needs at least {sol} SOL")
    tx = await _build(rpc, args.sender, args.receiver, args.mint, args.amount, args.decimals)
    return {"transaction": to_base64(tx), "message": message_base64(tx)}


def signed_transaction(transaction: str, message: str) -> Transaction:
    """The wallet's signed transaction, checked: it carries the prepared message, fully signed."""
    try:
        tx = Transaction.from_bytes(base64.b64decode(transaction, validate=True))
    except (ValueError, binascii.Error):
        raise ServiceError(NOT_SIGNED) from None
    if message_base64(tx) != message:
        raise ServiceError(NOT_SIGNED)
    try:
        tx.verify()
    except Exception:  # solders raises its own error type for a signature that does not verify
        raise ServiceError(NOT_SIGNED) from None
    return tx


async def submit_solana_send(http: httpx.AsyncClient, args: SolanaSubmitArgs) -> SubmittedSend:
    """Submit the signed transaction and wait for confirmation:
    {"signature", "confirmed": bool, "err": the transaction error or None}."""
    tx = signed_transaction(args.transaction, args.message)
    rpc = SolanaRpc(http, args.rpc_url)
    signature = await rpc.send_transaction(to_base64(tx))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CONFIRM_BUDGET_S
    while True:
        [status] = await rpc.signature_statuses([signature])
        if status is not None and (status.err is not None or status.confirmation in CONFIRMED):
            return {"signature": signature, "confirmed": status.err is None, "err": status.err}
        if loop.time() >= deadline:
            raise ServiceError(NOT_CONFIRMED)
        await asyncio.sleep(CONFIRM_POLL_S)
