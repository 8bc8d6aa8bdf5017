"""The hosted onramp client (behaviour.md §7): the exact requests it sends; and the engine services'
behaviour.md §8 fallbacks (options failure → built-in defaults, quote failure → an estimate, labelled)."""

from __future__ import annotations

import json
from decimal import Decimal

import httpx
import pytest

from modalcore.chains.catalog import SOLANA_MAINNET, catalog
from modalcore.core.services import ServiceError
from modalcore.services.backend.blockchain_api import BlockchainApiError
from modalcore.services.backend.onramp.api import OnrampApi
from modalcore.services.domain.onramp_defaults import PAYMENT_CURRENCIES, estimate
from modalcore.services.backend.onramp.service import NO_PROVIDER, onramp_services
from modalcore.services.domain.handles import ONRAMP_OPTIONS, ONRAMP_QUOTE, ONRAMP_URL

from ..hosted_http import SDK_PARAMS, recording_http


def api(http: httpx.AsyncClient) -> OnrampApi:
    return OnrampApi(http, "https://rpc.example/", "proj1")


async def test_options_is_a_get_with_the_sdk_params() -> None:
    async with recording_http({"paymentCurrencies": []}) as (seen, http):
        assert await api(http).options() == {"paymentCurrencies": []}
    (request,) = seen
    assert (request.method, request.url.path, dict(request.url.params)) == ("GET", "/v1/onramp/options", SDK_PARAMS)


async def test_quote_posts_purchase_and_payment_currency_amount_and_network() -> None:
    async with recording_http({"total": "100"}) as (seen, http):
        await api(http).quote("ETH", "USD", "100", "ethereum")
    (request,) = seen
    assert (request.method, request.url.path, dict(request.url.params)) == ("POST", "/v1/onramp/quote", SDK_PARAMS)
    assert json.loads(request.content) == {"purchaseCurrency": "ETH", "paymentCurrency": "USD", "amount": "100",
                                           "network": "ethereum"}


async def test_onramp_url_posts_the_wallets_network_preset_and_the_buy_experience() -> None:
    wallets = [{"address": "0xabc", "blockchains": ["ethereum"], "assets": ["ETH"]}]
    async with recording_http({"url": "https://pay.coinbase.com/buy?x=1"}) as (seen, http):
        url = await api(http).onramp_url(wallets, "ethereum", preset_fiat_amount="100")
    assert url == "https://pay.coinbase.com/buy?x=1"
    (request,) = seen
    assert (request.method, request.url.path) == ("POST", "/v1/generators/onrampurl")
    assert json.loads(request.content) == {"destinationWallets": wallets, "defaultNetwork": "ethereum",
                                           "defaultExperience": "buy", "presetFiatAmount": "100"}


async def test_an_http_failure_names_its_status() -> None:
    async with recording_http({}, status=503) as (_, http):
        with pytest.raises(BlockchainApiError, match="HTTP status code: 503"):
            await api(http).options()


async def test_an_answer_without_an_https_url_is_refused() -> None:
    async with recording_http({"url": "javascript:alert(1)"}) as (_, http):
        with pytest.raises(BlockchainApiError):
            await api(http).onramp_url([], "ethereum")


async def test_options_failure_falls_back_to_the_built_in_defaults() -> None:
    purchase = [{"id": "ETH", "name": "Ether"}]
    async with recording_http({}, status=500) as (seen, http):
        options = await onramp_services(None, api(http))[ONRAMP_OPTIONS](network="eip155:1", purchase=purchase)
    assert len(seen) == 1
    assert options == {"paymentCurrencies": PAYMENT_CURRENCIES, "purchaseCurrencies": purchase}
    limits = {m["id"]: (m["min"], m["max"]) for m in PAYMENT_CURRENCIES[0]["payment_method_limits"]}  # type: ignore[index]
    assert limits == {"card": ("10", "7500"), "ach_bank_account": ("10", "25000")}
    assert [c["id"] for c in PAYMENT_CURRENCIES] == ["USD", "EUR"]


async def test_quote_failure_gives_an_estimate_labelled_as_one() -> None:
    async with recording_http({}, status=500) as (_, http):
        quote = await onramp_services(None, api(http))[ONRAMP_QUOTE](
            network="eip155:1", purchase_currency="ETH", payment_currency="USD", amount="100", price="2500")
    assert quote == {**estimate(Decimal(100), Decimal(2500)), "estimate": True}
    assert quote["fees"] == "2.00" and quote["purchaseAmount"] == "0.0392"  # the highest fee, 2 %


async def test_without_a_provider_no_url_is_made() -> None:
    with pytest.raises(ServiceError, match=NO_PROVIDER):
        await onramp_services(None, None)[ONRAMP_URL](network="eip155:1", address="0xabc",
                                                        purchase_currency="ETH", payment_currency="USD", amount="100")


async def test_a_solana_destination_goes_to_the_hosted_url_request_on_the_providers_solana() -> None:
    """behaviour.md §1 Meld for Solana: the base58 address as it is, on the provider's "solana" network
    (not the display name "Solana")."""
    address = "SuJsQsCbtNtogXTXfXKnuqSeyde72ryvUz3JhqPKRKg"
    async with recording_http({"url": "https://meld.example/buy?x=1"}) as (seen, http):
        answer = await onramp_services(None, api(http))[ONRAMP_URL](
            network=SOLANA_MAINNET, address=address, purchase_currency="SOL", payment_currency="USD", amount="100")
    assert answer == {"url": "https://meld.example/buy?x=1"}
    (request,) = seen
    assert json.loads(request.content) == {
        "destinationWallets": [{"address": address, "blockchains": ["solana"], "assets": ["SOL"]}],
        "defaultNetwork": "solana", "defaultExperience": "buy", "presetFiatAmount": "100"}


# behaviour.md §9 "Card onramp chains: ethereum, arbitrum, polygon, berachain, avalanche-c-chain, optimism,
# celo, base; fallback ethereum": the provider's ids by CAIP-2 network, whatever the display name
PROVIDER_IDS = [("eip155:1", "ethereum"), ("eip155:42161", "arbitrum"), ("eip155:137", "polygon"),
                ("eip155:80094", "berachain"), ("eip155:43114", "avalanche-c-chain"), ("eip155:10", "optimism"),
                ("eip155:42220", "celo"), ("eip155:8453", "base"),
                ("eip155:56", "ethereum"), ("eip155:31337", "ethereum")]  # not card chains: the fallback


@pytest.mark.parametrize(("network", "provider_id"), PROVIDER_IDS)
async def test_the_onramp_url_request_names_the_providers_network_id_not_the_display_name(
        network: str, provider_id: str) -> None:
    address = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
    async with recording_http({"url": "https://pay.coinbase.com/buy?x=1"}) as (seen, http):
        await onramp_services(None, api(http))[ONRAMP_URL](
            network=network, address=address, purchase_currency="USDC", payment_currency="EUR", amount="250")
    (request,) = seen
    assert (request.method, request.url.path, dict(request.url.params)) == (
        "POST", "/v1/generators/onrampurl", SDK_PARAMS)
    assert json.loads(request.content) == {
        "destinationWallets": [{"address": address, "blockchains": [provider_id], "assets": ["USDC"]}],
        "defaultNetwork": provider_id, "defaultExperience": "buy", "presetFiatAmount": "250"}
    name = catalog().get(network)
    if name is not None:  # e.g. "Arbitrum One", "OP Mainnet", "Avalanche", "Hardhat": never on the wire
        assert name.name.encode() not in request.content


@pytest.mark.parametrize(("network", "provider_id"), PROVIDER_IDS[:3] + [(SOLANA_MAINNET, "solana")])
async def test_the_quote_request_names_the_providers_network_id(network: str, provider_id: str) -> None:
    async with recording_http({"fees": "1", "subtotal": "99", "total": "100", "purchaseAmount": "1"}) as (seen, http):
        await onramp_services(None, api(http))[ONRAMP_QUOTE](
            network=network, purchase_currency="USDC", payment_currency="USD", amount="100", price="1")
    (request,) = seen
    assert json.loads(request.content)["network"] == provider_id
