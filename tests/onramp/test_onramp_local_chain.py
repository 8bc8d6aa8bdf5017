"""The local onramp provider (issue 16 "For development"): completing an order transfers exactly
the bought amount to the destination wallet on the dev chain, once."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx
import pytest

from modalcore.devchain.pytest_plugin import ChainsInfo
from modalcore.services.onramp.local import LocalOnramp, OnrampRefused

pytestmark = pytest.mark.chain
USER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"


def provider(info: ChainsInfo) -> LocalOnramp:
    networks: dict[str, dict[str, Any]] = {
        f"eip155:{cid}": {"rpc": url, "name": f"Chain {cid}", "tokens": info.chain(cid)["tokens"]}
        for cid, url in info.rpc_urls.items()}
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
        assert rpc.balance(USER) - before == int(Decimal("0.099") * 10**18) == order.units


def test_bad_orders_are_refused(devchains: ChainsInfo) -> None:
    local = provider(devchains)
    with pytest.raises(OnrampRefused):
        local.order_url("not-an-address", "eip155:31337", "ETH", "USD", "100")
    with pytest.raises(OnrampRefused):
        local.quote("ETH", "USD", "100000", "eip155:31337")
    with pytest.raises(OnrampRefused):
        local.quote("BTC", "USD", "100", "eip155:31337")
