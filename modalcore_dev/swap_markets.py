"""The dev chains' local Uniswap V2 markets, read from the deployment the dev chains were set up
with (fixtures/chain/deployment.json); the demo and the tests hand them to the swap services."""

from __future__ import annotations

import json
from pathlib import Path

from modalcore.services.backend.swap.uniswap_v2 import UniswapV2Market

DEPLOYMENT = Path(__file__).resolve().parents[1] / "fixtures" / "chain" / "deployment.json"


def dev_markets(path: Path = DEPLOYMENT) -> dict[int, UniswapV2Market]:
    """The local markets of the dev chains; none without the deployment."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    markets = {}
    for entry in data.values() if isinstance(data, dict) else ():
        if isinstance(entry, dict) and "uniswapV2" in entry:
            market = UniswapV2Market.from_deployment(entry)
            markets[market.chain_id] = market
    return markets
