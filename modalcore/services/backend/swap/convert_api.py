"""Client of the hosted Blockchain API swap endpoints, `/v1/convert/*` (behaviour.md §7), for behaviour.md §9's
supported swap networks. Every request carries projectId, st and sv (HostedApi); a network
outside the list is refused before any request with behaviour.md §8's 'Network not supported for
Swaps' (or '... for Gas Price'). Tokens are CAIP-10 ('eip155:1:0x…'); the native currency is
NATIVE_TOKEN_ADDRESS (the placeholder the hosted API uses; behaviour.md §9 does not show its value)."""

from __future__ import annotations

from decimal import Decimal

from ....rules.texts import http_status
from ..blockchain_api import BlockchainApi, BlockchainApiError
from .networks import require_gas_price_network, require_swap_network
from ...domain.swap_types import DEFAULT_SLIPPAGE

NATIVE_TOKEN_ADDRESS = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"

__all__ = ["NATIVE_TOKEN_ADDRESS", "BlockchainApiError", "ConvertApi"]


class ConvertApi(BlockchainApi):
    async def _post(self, path: str, body: dict[str, object]) -> object:
        response = await self.http.post(f"{self.base_url}{path}", params=self._params({}), json=body)
        if response.status_code != 200:
            raise BlockchainApiError(http_status(response.status_code))
        return response.json()

    async def tokens(self, chain_id: str) -> object:
        """GET /v1/convert/tokens: chainId (CAIP-2)."""
        require_swap_network(chain_id)
        return await self._get("/v1/convert/tokens", chainId=chain_id)

    async def quotes(self, amount: int, user_address: str, from_: str, to: str,
                     gas_price: int | None = None) -> object:
        """GET /v1/convert/quotes: amount, userAddress, from, to, gasPrice."""
        require_swap_network(from_)
        return await self._get("/v1/convert/quotes", amount=str(amount), userAddress=user_address,
                               **{"from": from_, "to": to},
                               gasPrice=None if gas_price is None else str(gas_price))

    async def allowance(self, token_address: str, user_address: str) -> object:
        """GET /v1/convert/allowance: tokenAddress, userAddress."""
        require_swap_network(token_address)
        return await self._get("/v1/convert/allowance", tokenAddress=token_address,
                               userAddress=user_address)

    async def gas_price(self, chain_id: str) -> object:
        """GET /v1/convert/gas-price: chainId."""
        require_gas_price_network(chain_id)
        return await self._get("/v1/convert/gas-price", chainId=chain_id)

    async def build_approve(self, user_address: str, from_: str, to: str) -> object:
        """GET /v1/convert/build-approve: userAddress, from, to."""
        require_swap_network(from_)
        return await self._get("/v1/convert/build-approve", userAddress=user_address,
                               **{"from": from_, "to": to})

    async def build_transaction(self, amount: int, from_: str, to: str, user_address: str,
                                slippage: Decimal = DEFAULT_SLIPPAGE,
                                disable_estimate: bool = False) -> object:
        """POST /v1/convert/build-transaction: amount, eip155.slippage, from, to, userAddress,
        disableEstimate, projectId (in the body as well as the query)."""
        require_swap_network(from_)
        return await self._post("/v1/convert/build-transaction", {
            "amount": str(amount), "eip155": {"slippage": str(slippage)}, "from": from_, "to": to,
            "userAddress": user_address, "disableEstimate": disable_estimate,
            "projectId": self.project_id,
        })
