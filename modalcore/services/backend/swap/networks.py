"""Which networks swap through which provider (behaviour.md §9 supported swap networks)."""

from __future__ import annotations

from ...domain.swap_types import NOT_SUPPORTED_GAS_PRICE, NOT_SUPPORTED_SWAPS, SwapNotSupported

SUPPORTED_SWAP_CHAINS: frozenset[int] = frozenset(
    {1, 42161, 10, 324, 8453, 56, 137, 100, 43114, 250, 8217, 1313161554})


def chain_of(caip: str) -> int | None:
    """The eip155 chain id of a CAIP-2 id ('eip155:1') or CAIP-10 account/token
    ('eip155:1:0x…'); None for other namespaces or malformed ids."""
    parts = caip.split(":")
    if len(parts) not in (2, 3) or parts[0] != "eip155" or not parts[1].isdigit():
        return None
    return int(parts[1])


def is_swap_network(caip: str) -> bool:
    chain_id = chain_of(caip)
    return chain_id is not None and chain_id in SUPPORTED_SWAP_CHAINS


def require_swap_network(caip: str) -> None:
    if not is_swap_network(caip):
        raise SwapNotSupported(NOT_SUPPORTED_SWAPS)


def require_gas_price_network(caip: str) -> None:
    if not is_swap_network(caip):
        raise SwapNotSupported(NOT_SUPPORTED_GAS_PRICE)
