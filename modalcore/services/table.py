"""Engine services behind `Call` commands: each is an async function of keyword arguments
returning plain data. `default_services` builds the table the runtime runs them from."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from ..directory.source import run_query
from .balances import fetch_balances
from .blockchain_api import BlockchainApi
from .history import fetch_history, hosted_history
from .nfts import fetch_nfts
from .send import estimate_fee as estimate_send_fee
from .onramp.api import OnrampApi
from .onramp.local import LocalOnramp
from .onramp.service import onramp_services
from .swap.convert_api import ConvertApi
from .swap.service import dev_markets, swap_quote, swap_tokens, tx_receipt

Service = Callable[..., Awaitable[Any]]


def default_services(http: httpx.AsyncClient, blockchain_api: BlockchainApi | None = None,
                     local_onramp: LocalOnramp | None = None) -> dict[str, Service]:
    """With `blockchain_api` (an operator-configured hosted API), history comes from its
    history call; otherwise from the self-hosted indexer over the network's RPC."""

    async def balances(**args: Any) -> Any:
        return await fetch_balances(http, **args)

    async def history(**args: Any) -> Any:
        if blockchain_api is not None:
            return await hosted_history(blockchain_api, **args)
        return await fetch_history(http, **args)

    async def nfts(**args: Any) -> Any:
        return await fetch_nfts(http, **args)

    async def estimate_fee(**args: Any) -> Any:
        return await estimate_send_fee(http, **args)

    async def directory(**args: Any) -> Any:
        # the local directory; wiring adds the config
        return await run_query(None, http, "", args)

    markets = dev_markets()
    hosted = (ConvertApi(http, blockchain_api.base_url, blockchain_api.project_id, blockchain_api.st,
                         blockchain_api.sv) if blockchain_api is not None else None)

    async def quote(**args: Any) -> Any:
        return await swap_quote(http, markets, hosted, **args)

    async def tokens(**args: Any) -> Any:
        return await swap_tokens(http, markets, hosted, **args)

    async def receipt(**args: Any) -> Any:
        return await tx_receipt(http, **args)

    onramp_api = (OnrampApi(http, blockchain_api.base_url, blockchain_api.project_id, blockchain_api.st,
                            blockchain_api.sv) if blockchain_api is not None else None)
    return {**onramp_services(local_onramp, onramp_api), "swap_quote": quote, "swap_tokens": tokens, "tx_receipt": receipt, "balances": balances, "history": history, "estimate_fee": estimate_fee,
            "directory": directory, "nfts": nfts}
