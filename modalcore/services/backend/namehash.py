"""ENS name hashing (EIP-137): `namehash`, `labelhash` and the reverse node of an address.

Names are lower-cased before hashing (the dev names are ASCII; full UTS-46 normalisation is not
applied: a name with characters outside letters, digits, hyphens and dots is refused by
`modalcore.rules.names` before it gets here)."""

from __future__ import annotations

from eth_utils.crypto import keccak

ROOT = b"\x00" * 32
REVERSE_SUFFIX = "addr.reverse"


def labelhash(label: str) -> bytes:
    return bytes(keccak(text=label.lower()))


def namehash(name: str) -> bytes:
    node = ROOT
    if name:
        for label in reversed(name.lower().split(".")):
            node = bytes(keccak(node + labelhash(label)))
    return node


def reverse_label(address: str) -> str:
    """The label of an address under addr.reverse: its lower-case hex without 0x."""
    return address.lower().removeprefix("0x")


def reverse_name(address: str) -> str:
    return f"{reverse_label(address)}.{REVERSE_SUFFIX}"


def reverse_node(address: str) -> bytes:
    return namehash(reverse_name(address))
