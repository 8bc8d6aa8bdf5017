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
from .solana_balances import fetch_solana_balances
from .solana_send import estimate_solana_fee, prepare_solana_send, submit_solana_send

Service = Callable[..., Awaitable[Any]]


def default_services(http: httpx.AsyncClient, blockchain_api: BlockchainApi | None = None,
                     ) -> dict[str, Service]:
    """With `blockchain_api` (an operator-configured hosted API), history comes from its
    history call; otherwise from the self-hosted indexer over the network's RPC."""

    async def balances(**args: Any) -> Any:
        return await fetch_balances(http, **args)

    async def solana_balances(**args: Any) -> Any:
        return await fetch_solana_balances(http, **args)

    async def solana_estimate_fee(**args: Any) -> Any:
        return await estimate_solana_fee(http, **args)

    async def solana_prepare_send(**args: Any) -> Any:
        return await prepare_solana_send(http, **args)

    async def solana_submit_send(**args: Any) -> Any:
        return await submit_solana_send(http, **args)

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

    return {"balances": balances, "history": history, "estimate_fee": estimate_fee,
            "directory": directory, "nfts": nfts, "solana_balances": solana_balances,
            "solana_estimate_fee": solana_estimate_fee, "solana_prepare_send": solana_prepare_send,
            "solana_submit_send": solana_submit_send}
