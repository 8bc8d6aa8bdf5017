"""The local onramp provider (issue 16 "For development"): completing an order transfers exactly
the bought amount to the destination wallet on the dev chain, once."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx
import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.services.backend.onramp.provider import OnrampRefused
from modalcore_dev.onramp import LocalOnramp
from modalcore.server.config import dev_networks
from modalcore.services.backend.table import default_services
from modalcore.services.domain.handles import HISTORY

pytestmark = pytest.mark.chain
USER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"


def provider(info: ChainsInfo) -> LocalOnramp:
    # the networks as the engine's config has them: the rig quotes at their prices
    configured = dev_networks(info.rpc_urls, info.deployment)
    networks: dict[str, dict[str, Any]] = {
        network_id: {"rpc": entry["rpc"][0], "name": entry["name"], "native_price": entry["native_price"],
                     "tokens": entry["tokens"]}
        for network_id, entry in configured.items()}
    return LocalOnramp("http://127.0.0.1:9", networks)


async def test_an_order_credits_exactly_what_was_quoted_once(devchain: ChainsInfo) -> None:
    local = provider(devchain)
    tusd = devchain.token(31337, "TUSD")["address"]
    quote = local.quote("TUSD", "USD", "100", "eip155:31337")
    assert quote["purchaseAmount"] == "99" and quote["fees"] == "1.00"
    url = local.order_url(USER, "eip155:31337", "TUSD", "USD", "100")
    assert url.startswith("http://127.0.0.1:9/onramp/local?order=")
    order_id = url.rsplit("=", 1)[1]
    with devchain.rpc(31337) as rpc:
        before = rpc.erc20_balance(tusd, USER)
        async with httpx.AsyncClient() as http:
            await local.complete(http, order_id)
            await local.complete(http, order_id)  # pressed twice: one transfer
        assert rpc.erc20_balance(tusd, USER) - before == 99_000_000


async def test_ether_comes_from_the_native_treasury(devchain: ChainsInfo) -> None:
    local = provider(devchain)
    url = local.order_url(USER, "eip155:31337", "ETH", "USD", "300")
    with devchain.rpc(31337) as rpc:
        before = rpc.balance(USER)
        async with httpx.AsyncClient() as http:
            order = await local.complete(http, url.rsplit("=", 1)[1])
        # $300 less the 1 % fee at the network's configured $2,000 (one price per chain)
        assert rpc.balance(USER) - before == int(Decimal("0.1485") * 10**18) == order.units


def test_bad_orders_are_refused(devchains: ChainsInfo) -> None:
    local = provider(devchains)
    with pytest.raises(OnrampRefused):
        local.order_url("not-an-address", "eip155:31337", "ETH", "USD", "100")
    with pytest.raises(OnrampRefused):
        local.quote("ETH", "USD", "100000", "eip155:31337")
    with pytest.raises(OnrampRefused):
        local.quote("BTC", "USD", "100", "eip155:31337")


async def test_activity_names_a_local_purchase_by_its_transfer_hash(devchain: ChainsInfo) -> None:
    """A purchase through the local page is a plain transfer from a Hardhat treasury; the
    provider knows the hashes it sent, so the self-hosted history marks exactly those (another
    transfer from the same treasury stays "Received")."""
    local = provider(devchain)
    tusd = devchain.token(31337, "TUSD")["address"]
    url = local.order_url(USER, "eip155:31337", "TUSD", "USD", "20")
    async with httpx.AsyncClient() as http:
        order = await local.complete(http, url.rsplit("=", 1)[1])
        with devchain.rpc(31337) as rpc:  # the same treasury sends outside the onramp
            other = rpc.call("eth_sendTransaction", [{"from": "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65",
                                                       "to": USER, "value": hex(10**15)}])
        page = await default_services(http, local_onramp=local)[HISTORY](
            rpc_url=devchain.rpc_urls[31337], address=USER, chain="eip155:31337", cursor=None,
            limit=10, native_name="Ether", native_symbol="ETH", native_decimals=18)
    by_id = {tx["id"]: tx for tx in page["data"]}
    bought = by_id[order.tx]
    assert bought.get("onramp") == "local"
    assert [(t["fungible_info"]["symbol"], t["direction"], t["quantity"]["numeric"])
            for t in bought["transfers"]] == [("TUSD", "in", "19.8")]
    assert tusd.lower() == bought["transfers"][0]["fungible_info"]["address"].lower()
    assert "onramp" not in by_id[other]
