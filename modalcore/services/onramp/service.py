"""The engine services behind the Buy view's calls: `onramp_options`, `onramp_quote`,
`onramp_url`. The network's local provider answers on the dev chains (demo mode); else the
hosted API; SPEC §8's fallbacks hold: options failure → the built-in defaults, quote failure →
an estimate at the highest fee, marked `"estimate": true`."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from ...runtime.services import ServiceError
from .api import OnrampApi
from .defaults import default_options, estimate
from .local import LocalOnramp, OnrampRefused

log = logging.getLogger(__name__)
Service = Callable[..., Awaitable[Any]]
NO_PROVIDER = "No onramp provider is available for this network"


def onramp_services(local: LocalOnramp | None, hosted: OnrampApi | None) -> dict[str, Service]:
    def _local(network: str) -> LocalOnramp | None:
        return local if local is not None and network in local.networks else None

    async def options(*, network: str, purchase: list[dict[str, Any]]) -> Any:
        provider = _local(network)
        if provider is not None:
            return provider.options(network)
        if hosted is not None:
            try:
                return await hosted.options()
            except Exception as error:  # SPEC §8: the built-in defaults instead
                log.warning("onramp options failed (%s): built-in defaults", error)
        return default_options(purchase)

    async def quote(*, network: str, purchase_currency: str, payment_currency: str, amount: str,
                    price: str | None = None, decimals: int = 6) -> Any:
        provider = _local(network)
        try:
            if provider is not None:
                return provider.quote(purchase_currency, payment_currency, amount, network)
            if hosted is not None:
                return await hosted.quote(purchase_currency, payment_currency, amount, network)
        except OnrampRefused as error:
            raise ServiceError(str(error)) from None
        except Exception as error:  # SPEC §8: an estimate instead, labelled as one
            log.warning("onramp quote failed (%s): an estimate", error)
        try:
            if price is None:
                raise ServiceError("No price known for an estimate")
            return {**estimate(Decimal(amount), Decimal(price), decimals), "estimate": True}
        except InvalidOperation:
            raise ServiceError("Invalid amount") from None

    async def url(*, network: str, address: str, purchase_currency: str, payment_currency: str,
                  amount: str, network_name: str = "") -> Any:
        provider = _local(network)
        try:
            if provider is not None:
                return {"url": provider.order_url(address, network, purchase_currency, payment_currency, amount)}
        except OnrampRefused as error:
            raise ServiceError(str(error)) from None
        if hosted is None:
            raise ServiceError(NO_PROVIDER)
        wallets = [{"address": address, "blockchains": [network_name or network], "assets": [purchase_currency]}]
        return {"url": await hosted.onramp_url(wallets, network_name or network, preset_fiat_amount=amount)}

    return {"onramp_options": options, "onramp_quote": quote, "onramp_url": url}
