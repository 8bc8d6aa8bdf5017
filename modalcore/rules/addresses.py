"""Address formats (behaviour.md §5): EVM and Solana."""

from __future__ import annotations

import re

import base58
from eth_utils.address import to_checksum_address

_EVM = re.compile(r"^(0x)?[0-9a-fA-F]{40}$")
# Edwards25519 (RFC 8032 §5.1): the field's prime and the curve's d = -121665/121666
_P = 2**255 - 19
_D = -121665 * pow(121666, -1, _P) % _P


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
    return raw is not None and _on_curve(raw)


def _on_curve(raw: bytes) -> bool:
    """Whether 32 bytes decompress to an Edwards25519 point, as Solana's `is_on_curve` reads them
    (curve25519-dalek: y is the low 255 bits; some x has x² = (y² - 1) / (d·y² + 1)). Pure
    arithmetic, so the slices need no Solana library."""
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    x2 = (y * y - 1) * pow(_D * y * y + 1, -1, _P) % _P
    return x2 == 0 or pow(x2, (_P - 1) // 2, _P) == 1


def checksum(address: str) -> str:
    return str(to_checksum_address(address if address.startswith("0x") else "0x" + address))
