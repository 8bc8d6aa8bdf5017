"""The hosted onramp's own network ids (behaviour.md §9 "Card onramp chains: ethereum, arbitrum, polygon,
berachain, avalanche-c-chain, optimism, celo, base; fallback ethereum"), by CAIP-2 id: what
`destinationWallets[].blockchains`, `defaultNetwork` and the quote's `network` carry. A network's
display name ("Arbitrum One", "OP Mainnet", an operator's own label) is never sent."""

from __future__ import annotations

CARD_CHAINS = {
    "eip155:1": "ethereum",
    "eip155:42161": "arbitrum",
    "eip155:137": "polygon",
    "eip155:80094": "berachain",
    "eip155:43114": "avalanche-c-chain",
    "eip155:10": "optimism",
    "eip155:42220": "celo",
    "eip155:8453": "base",
}
FALLBACK = "ethereum"
SOLANA = "solana"  # behaviour.md §1: Meld serves Solana; every Solana cluster is the provider's "solana"


def provider_network(network: str) -> str:
    """The provider's id of a CAIP-2 network: a card onramp chain's own, "solana" for the solana
    namespace, else the fallback (behaviour.md §9)."""
    if network.startswith("solana:"):
        return SOLANA
    return CARD_CHAINS.get(network, FALLBACK)
