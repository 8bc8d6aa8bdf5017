"""Client of the hosted Blockchain API (behaviour.md §7). Used when the operator configures its base URL;
the self-hosted providers answer otherwise. Every call carries projectId, st and sv."""

from __future__ import annotations

from typing import Any


from .hosted import SDK_TYPE, SDK_VERSION, HostedApi
from ...rules.texts import http_status

__all__ = ["SDK_TYPE", "SDK_VERSION", "BlockchainApi", "BlockchainApiError"]


class BlockchainApiError(RuntimeError):
    pass


class BlockchainApi(HostedApi):
    async def _get(self, path: str, **params: object) -> object:
        response = await self.http.get(f"{self.base_url}{path}", params=self._params(params))
        if response.status_code != 200:
            raise BlockchainApiError(http_status(response.status_code))
        return response.json()

    async def balance(self, address: str, chain_id: str, currency: str = "usd",
                      force_update: str | None = None) -> Any:
        """GET /v1/account/{address}/balance: currency, chainId, forceUpdate; returns balances."""
        return await self._get(f"/v1/account/{address}/balance", currency=currency,
                               chainId=chain_id, forceUpdate=force_update)

    async def history(self, account: str, cursor: str | None = None, onramp: str | None = None,
                      chain_id: str | None = None) -> object:
        """GET /v1/account/{account}/history: cursor, onramp, chainId; returns data, next."""
        return await self._get(f"/v1/account/{account}/history", cursor=cursor, onramp=onramp,
                               chainId=chain_id)
