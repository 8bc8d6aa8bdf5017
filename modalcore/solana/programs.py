"""Well-known Solana program ids and account sizes."""

from __future__ import annotations

from solders.pubkey import Pubkey

SYSTEM_PROGRAM = Pubkey.from_string("11111111111111111111111111111111")
TOKEN_PROGRAM = Pubkey.from_string("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
ASSOCIATED_TOKEN_PROGRAM = Pubkey.from_string("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")

MINT_SIZE = 82
TOKEN_ACCOUNT_SIZE = 165
LAMPORTS_PER_SOL = 1_000_000_000
