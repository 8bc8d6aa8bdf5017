"""Swaps (behaviour.md §1, §7, §9): the quote-provider interface (its pure types are
`services/domain/swap_types.py`), amounts and networks, the local Uniswap V2 provider and the
hosted `/v1/convert/*` client. Nothing is imported here, so a slice reading the types loads no HTTP or ABI library."""
