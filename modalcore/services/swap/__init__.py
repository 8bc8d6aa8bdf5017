"""Swaps (behaviour.md §1, §7, §9): the quote-provider interface and its pure types (`types`, `amounts`,
`networks`: what the slices read), the local Uniswap V2 provider and the hosted `/v1/convert/*`
client. Nothing is imported here, so a slice reading the types loads no HTTP or ABI library."""
