"""The transactions a Solana send asks the wallet to sign, built with `solders`.

A SOL send is one System Program transfer. An SPL send creates the receiver's associated token
account when it is missing (CreateIdempotent, paid by the sender) and moves the amount with
TransferChecked (which also checks the mint's decimals). The transaction is unsigned: its message
carries the fee payer and a recent blockhash; the wallet adds the signature.
"""

from __future__ import annotations

import base64
import struct

from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.message import Message
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from solders.token.associated import get_associated_token_address
from solders.transaction import Transaction

from .programs import ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM, TOKEN_PROGRAM

CREATE_IDEMPOTENT = 1  # associated token account program instruction
TRANSFER_CHECKED = 12  # SPL Token instruction


def associated_token_address(owner: Pubkey, mint: Pubkey) -> Pubkey:
    return get_associated_token_address(owner, mint)


def create_ata_idempotent(payer: Pubkey, owner: Pubkey, mint: Pubkey) -> Instruction:
    ata = associated_token_address(owner, mint)
    return Instruction(ASSOCIATED_TOKEN_PROGRAM, bytes([CREATE_IDEMPOTENT]), [
        AccountMeta(payer, True, True),
        AccountMeta(ata, False, True),
        AccountMeta(owner, False, False),
        AccountMeta(mint, False, False),
        AccountMeta(SYSTEM_PROGRAM, False, False),
        AccountMeta(TOKEN_PROGRAM, False, False),
    ])


def transfer_checked(source: Pubkey, mint: Pubkey, destination: Pubkey, owner: Pubkey,
                     amount: int, decimals: int) -> Instruction:
    data = bytes([TRANSFER_CHECKED]) + struct.pack("<QB", amount, decimals)
    return Instruction(TOKEN_PROGRAM, data, [
        AccountMeta(source, False, True),
        AccountMeta(mint, False, False),
        AccountMeta(destination, False, True),
        AccountMeta(owner, True, False),
    ])


def sol_transfer_instructions(sender: Pubkey, receiver: Pubkey, lamports: int) -> list[Instruction]:
    return [transfer(TransferParams(from_pubkey=sender, to_pubkey=receiver, lamports=lamports))]


def spl_transfer_instructions(sender: Pubkey, receiver: Pubkey, mint: Pubkey, amount: int,
                              decimals: int) -> list[Instruction]:
    return [
        create_ata_idempotent(sender, receiver, mint),
        transfer_checked(associated_token_address(sender, mint), mint,
                         associated_token_address(receiver, mint), sender, amount, decimals),
    ]


def unsigned_transaction(instructions: list[Instruction], payer: Pubkey, blockhash: Hash) -> Transaction:
    return Transaction.new_unsigned(Message.new_with_blockhash(instructions, payer, blockhash))


def to_base64(tx: Transaction) -> str:
    return base64.b64encode(bytes(tx)).decode("ascii")


def message_base64(tx: Transaction) -> str:
    """The serialized message (what getFeeForMessage prices and the signer signs)."""
    return base64.b64encode(bytes(tx.message)).decode("ascii")
