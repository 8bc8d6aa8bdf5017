"""The engine services behind the Buy view's calls: `onramp_options`, `onramp_quote`,
`onramp_url`. The network's local provider answers on the dev chains (demo mode); else the
hosted API; behaviour.md §8's fallbacks hold: options failure → the built-in defaults, quote failure →
an estimate at the highest fee, marked `"estimate": true`."""

from __future__ import annotations

import logging
from decimal import Decimal, InvalidOperation

import httpx

from ....core.services import serve, ServiceContext, ServiceError, ServiceTable
from ...domain.handles import ONRAMP_OPTIONS, ONRAMP_QUOTE, ONRAMP_URL, OptionsArgs, OrderUrl, QuoteArgs, UrlArgs
from ..blockchain_api import BlockchainApi
from .api import OnrampApi
from ...domain.onramp_defaults import default_options, estimate
from .provider import OnrampProvider, OnrampRefused
from .networks import provider_network

log = logging.getLogger(__name__)
NO_PROVIDER = "No onramp provider is available for this network"


def onramp_api(http: httpx.AsyncClient, blockchain_api: BlockchainApi | None) -> OnrampApi | None:
    if blockchain_api is None:
        return None
    return OnrampApi(http, blockchain_api.base_url, blockchain_api.project_id, blockchain_api.st, blockchain_api.sv)


def onramp_services(local: OnrampProvider | None, hosted: OnrampApi | None) -> ServiceTable:
    def _local(network: str) -> OnrampProvider | None:
        return local if local is not None and network in local.networks else None

    # options and quotes are the provider's JSON as it answered (or the fallbacks in its shape):
    # the slices validate them at the session's edge (slices/onramp_options, onramp_quote)
    async def options(ctx: ServiceContext | None, args: OptionsArgs) -> object:
        network, purchase = args.network, args.purchase
        provider = _local(network)
        if provider is not None:
            return provider.options(network)
        if hosted is not None:
            try:
                return await hosted.options()
            except Exception as error:  # behaviour.md §8: the built-in defaults instead
                log.warning("onramp options failed (%s): built-in defaults", error)
        return default_options(purchase)

    async def quote(ctx: ServiceContext | None, args: QuoteArgs) -> object:
        network, purchase_currency, payment_currency = args.network, args.purchase_currency, args.payment_currency
        amount, price, decimals = args.amount, args.price, args.decimals
        provider = _local(network)
        try:
            if provider is not None:
                return provider.quote(purchase_currency, payment_currency, amount, network)
            if hosted is not None:
                return await hosted.quote(purchase_currency, payment_currency, amount, provider_network(network))
        except OnrampRefused as error:
            raise ServiceError(str(error)) from None
        except Exception as error:  # behaviour.md §8: an estimate instead, labelled as one
            log.warning("onramp quote failed (%s): an estimate", error)
        try:
            if price is None:
                raise ServiceError("No price known for an estimate")
            return {**estimate(Decimal(amount), Decimal(price), decimals), "estimate": True}
        except InvalidOperation:
            raise ServiceError("Invalid amount") from None

    async def url(ctx: ServiceContext | None, args: UrlArgs) -> OrderUrl:
        network, address, purchase_currency = args.network, args.address, args.purchase_currency
        payment_currency, amount = args.payment_currency, args.amount
        provider = _local(network)
        try:
            if provider is not None:
                return {"url": provider.order_url(address, network, purchase_currency, payment_currency, amount)}
        except OnrampRefused as error:
            raise ServiceError(str(error)) from None
        if hosted is None:
            raise ServiceError(NO_PROVIDER)
        chain = provider_network(network)
        wallets = [{"address": address, "blockchains": [chain], "assets": [purchase_currency]}]
        return {"url": await hosted.onramp_url(wallets, chain, preset_fiat_amount=amount)}

    return {ONRAMP_OPTIONS: serve(ONRAMP_OPTIONS, options), ONRAMP_QUOTE: serve(ONRAMP_QUOTE, quote),
            ONRAMP_URL: serve(ONRAMP_URL, url)}
