"""The dev chain's preloaded accounts: well-known dev keypairs (like Hardhat's accounts, never for
real funds) funded with SOL, and one SPL token mint whose supply sits in the first account's
associated token account. Everything is derived from fixed seeds, so addresses are stable."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from solders.keypair import Keypair
from solders.pubkey import Pubkey

from modalcore.solana.programs import LAMPORTS_PER_SOL


def _seed(label: str) -> bytes:
    return hashlib.sha256(f"modalcore solana devchain {label}".encode()).digest()


def dev_keypair(index: int) -> Keypair:
    """Dev account `index` (0 holds the token supply; all are funded)."""
    return Keypair.from_seed(_seed(f"account {index}"))


DEV_ACCOUNTS = 4
DEV_LAMPORTS = 1_000 * LAMPORTS_PER_SOL


@dataclass(frozen=True)
class DevToken:
    name: str
    symbol: str
    decimals: int
    supply: int  # base units, all held by dev account 0

    @property
    def mint_keypair(self) -> Keypair:
        return Keypair.from_seed(_seed(f"mint {self.symbol}"))

    @property
    def mint(self) -> Pubkey:
        return self.mint_keypair.pubkey()


DEV_TOKEN = DevToken("Dev USD", "DUSD", 6, 1_000_000 * 10**6)
