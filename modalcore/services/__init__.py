"""Engine services behind `Call` commands: each is an async function of keyword arguments
returning plain data. `default_services` builds the table the runtime runs them from."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from .balances import fetch_balances
from .history import fetch_history
from .send import estimate_fee as estimate_send_fee

Service = Callable[..., Awaitable[Any]]


def default_services(http: httpx.AsyncClient) -> dict[str, Service]:
    async def balances(**args: Any) -> Any:
        return await fetch_balances(http, **args)

    async def history(**args: Any) -> Any:
        return await fetch_history(http, **args)

    async def estimate_fee(**args: Any) -> Any:
        return await estimate_send_fee(http, **args)

    return {"balances": balances, "history": history, "estimate_fee": estimate_fee}
