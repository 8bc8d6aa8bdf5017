"""Address formats (SPEC §5): EVM and Solana."""

from __future__ import annotations

import re

import base58
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


def checksum(address: str) -> str:
    return str(to_checksum_address(address if address.startswith("0x") else "0x" + address))
