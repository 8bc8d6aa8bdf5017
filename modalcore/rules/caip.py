"""CAIP-2 network ids and CAIP-10 addresses (behaviour.md §5)."""

from __future__ import annotations

from dataclasses import dataclass
from .texts import INVALID_CAIP2, INVALID_CAIP10, INVALID_CHAIN_ID

NAMESPACES = ("eip155", "solana", "polkadot", "bip122", "cosmos")
MAX_EVM_CHAIN_ID = 2147483648


class CaipError(ValueError):
    pass


@dataclass(frozen=True)
class Caip2:
    namespace: str
    reference: str

    def __str__(self) -> str:
        return f"{self.namespace}:{self.reference}"


@dataclass(frozen=True)
class Caip10:
    namespace: str
    reference: str
    address: str

    @property
    def network(self) -> str:
        return f"{self.namespace}:{self.reference}"


def parse_caip2(value: str) -> Caip2:
    parts = value.split(":")
    if len(parts) != 2 or not all(parts):
        raise CaipError(INVALID_CAIP2)
    namespace, reference = parts
    if namespace == "eip155":
        validate_evm_chain_id(reference)
    return Caip2(namespace, reference)


def parse_caip10(value: str) -> Caip10:
    parts = value.split(":")
    if len(parts) != 3 or not all(parts) or parts[0] not in NAMESPACES:
        raise CaipError(INVALID_CAIP10)
    return Caip10(parts[0], parts[1], parts[2])


def validate_evm_chain_id(reference: str | int) -> int:
    try:
        chain_id = int(reference)
    except ValueError as error:
        raise CaipError(INVALID_CHAIN_ID) from error
    if chain_id < 0 or chain_id >= MAX_EVM_CHAIN_ID:
        raise CaipError(INVALID_CHAIN_ID)
    return chain_id
