"""What the Solana tests share: a funded fresh keypair, signing and sending a transfer."""

from __future__ import annotations

import base64

from solders.hash import Hash
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.transaction import Transaction

from modalcore.services.backend.solana_rpc import SolanaRpc
from modalcore.solana.transfers import (
    message_base64, sol_transfer_instructions, spl_transfer_instructions, unsigned_transaction)

SOL = 1_000_000_000


async def funded(rpc: SolanaRpc, lamports: int = 10 * SOL) -> Keypair:
    keypair = Keypair()
    await rpc.request_airdrop(str(keypair.pubkey()), lamports)
    return keypair


async def signed_sol_transfer(rpc: SolanaRpc, sender: Keypair, receiver: Pubkey, lamports: int) -> Transaction:
    blockhash, _ = await rpc.latest_blockhash()
    tx = unsigned_transaction(sol_transfer_instructions(sender.pubkey(), receiver, lamports),
                              sender.pubkey(), Hash.from_string(blockhash))
    tx.sign([sender], tx.message.recent_blockhash)
    return tx


async def signed_spl_transfer(rpc: SolanaRpc, sender: Keypair, receiver: Pubkey, mint: Pubkey,
                              amount: int, decimals: int) -> Transaction:
    blockhash, _ = await rpc.latest_blockhash()
    tx = unsigned_transaction(spl_transfer_instructions(sender.pubkey(), receiver, mint, amount, decimals),
                              sender.pubkey(), Hash.from_string(blockhash))
    tx.sign([sender], tx.message.recent_blockhash)
    return tx


def b64(tx: Transaction) -> str:
    return base64.b64encode(bytes(tx)).decode()


async def fee_of(rpc: SolanaRpc, tx: Transaction) -> int:
    fee = await rpc.fee_for_message(message_base64(tx))
    assert fee is not None
    return fee
