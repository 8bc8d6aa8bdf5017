"""Address formats (SPEC §5): EVM and Solana."""

from __future__ import annotations

import re

import base58
from solders.pubkey import Pubkey
from eth_utils.address import to_checksum_address

_EVM = re.compile(r"^(0x)?[0-9a-fA-F]{40}$")


def is_evm_address(value: str) -> bool:
    return bool(_EVM.match(value))


def is_solana_address(value: str) -> bool:
    if not 32 <= len(value) <= 44:
        return False
    try:
        base58.b58decode(value)
    except ValueError:
        return False
    return True


def solana_key(value: str) -> bytes | None:
    """The 32-byte public key a Solana address names; None unless the address is base58 of
    32 to 44 characters that decodes to 32 bytes."""
    if not is_solana_address(value):
        return None
    raw = bytes(base58.b58decode(value))
    return raw if len(raw) == 32 else None


def is_solana_wallet_address(value: str) -> bool:
    """A Solana address a wallet can hold: a 32-byte key on the Ed25519 curve (a program-derived
    address is off the curve: nobody can sign for it)."""
    raw = solana_key(value)
    return raw is not None and Pubkey(raw).is_on_curve()


def checksum(address: str) -> str:
    return str(to_checksum_address(address if address.startswith("0x") else "0x" + address))
