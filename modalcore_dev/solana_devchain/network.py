"""The operator-config entry of the local Solana dev chain (what `make run` configures)."""

from __future__ import annotations

from typing import Any

from modalcore.chains.catalog import SOLANA_LOCAL
from modalcore_dev.solana_devchain.accounts import DEV_TOKEN

DEV_SOL_PRICE = 150.0  # USD: balances, Send and the local onramp (modalcore_dev/onramp.py) all price SOL at it


def solana_dev_network(rpc_url: str) -> dict[str, Any]:
    """`{caip2: network}` for the engine config: a non-test network, so balances show (behaviour.md §5)."""
    return {SOLANA_LOCAL: {
        "name": "Solana Local",
        "rpc": [rpc_url],
        "native": {"name": "Solana", "symbol": "SOL", "decimals": 9},
        "native_price": DEV_SOL_PRICE,
        "testnet": False,
        "dev": True,
        "tokens": [{"address": str(DEV_TOKEN.mint), "symbol": DEV_TOKEN.symbol, "name": DEV_TOKEN.name,
                    "decimals": DEV_TOKEN.decimals, "price": 1.0}],
    }}
