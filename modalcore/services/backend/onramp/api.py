"""Client of the hosted onramp calls (behaviour.md §7): GET /v1/onramp/options, POST /v1/onramp/quote
(purchaseCurrency, paymentCurrency, amount, network) and POST /v1/generators/onrampurl
(destinationWallets, defaultNetwork, partnerUserId, defaultExperience buy, presetCryptoAmount,
presetFiatAmount; returns url). Every request carries projectId, st and sv."""

from __future__ import annotations

from typing import Any

from ....rules.texts import http_status
from ..blockchain_api import BlockchainApiError
from ..hosted import HostedApi

BUY = "buy"


class OnrampApi(HostedApi):
    async def _send(self, method: str, path: str, body: dict[str, object] | None = None) -> object:
        response = await self.http.request(method, f"{self.base_url}{path}", params=self._params({}),
                                           json=body)
        if response.status_code != 200:
            raise BlockchainApiError(http_status(response.status_code))
        return response.json()

    async def options(self) -> object:
        return await self._send("GET", "/v1/onramp/options")

    async def quote(self, purchase_currency: str, payment_currency: str, amount: str, network: str) -> Any:
        return await self._send("POST", "/v1/onramp/quote", {
            "purchaseCurrency": purchase_currency, "paymentCurrency": payment_currency,
            "amount": amount, "network": network,
        })

    async def onramp_url(self, destination_wallets: list[dict[str, Any]], default_network: str, *,
                         preset_fiat_amount: str | None = None, preset_crypto_amount: str | None = None,
                         partner_user_id: str | None = None) -> str:
        body: dict[str, object] = {"destinationWallets": destination_wallets, "defaultNetwork": default_network,
                                "defaultExperience": BUY}
        for key, value in (("partnerUserId", partner_user_id), ("presetFiatAmount", preset_fiat_amount),
                           ("presetCryptoAmount", preset_crypto_amount)):
            if value is not None:
                body[key] = value
        answer = await self._send("POST", "/v1/generators/onrampurl", body)
        url = answer.get("url") if isinstance(answer, dict) else None
        if not isinstance(url, str) or not url.startswith("https://"):
            raise BlockchainApiError("The onramp service answered no provider URL")
        return url
