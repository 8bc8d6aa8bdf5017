"""One price source per chain: the local onramp rig quotes at the networks' configured prices,
the prices balances are valued at (and the dev Uniswap pools are funded at). The walk saw Buy
quote ETH at about $3,000 while the wallet valued it at $2,000: $100 bought 0.033 ETH, then
shown as worth $66."""

from __future__ import annotations

from decimal import Decimal

import pytest

from modalcore import samples
from modalcore.chains.catalog import SOLANA_LOCAL
from modalcore.server.config import DEV_ETH_PRICE, TOKEN_PRICES, EngineConfig, dev_networks, parse_config
from modalcore_dev.devchain.market import POOLS
from modalcore_dev.onramp_page import local_onramp
from modalcore_dev.solana_devchain.network import solana_dev_network

from ..devwallet import dev_session

RPC = {31337: "http://127.0.0.1:9", 31338: "http://127.0.0.1:9"}
DEPLOYMENT = {"31337": {"tokens": [
    {"address": "0x" + "11" * 20, "symbol": "DEMO", "name": "Demo Token", "decimals": 18},
    {"address": "0x" + "22" * 20, "symbol": "TUSD", "name": "Test USD", "decimals": 6}]}}


def config() -> EngineConfig:
    networks = {**dev_networks(RPC, DEPLOYMENT), **solana_dev_network("http://127.0.0.1:9")}
    return parse_config({"projects": {"demo": {"name": "Demo", "origins": []}}, "networks": networks,
                         "devchain_proxy": True, "public_url": "http://127.0.0.1:9"})


def test_a_buy_quote_and_the_balance_valuation_agree() -> None:
    """$100 of ETH from the local onramp, valued by the wallet's balances at the network's price:
    $99 (the 1 % fee), not $66."""
    cfg = config()
    onramp = local_onramp(cfg)
    assert onramp is not None
    quote = onramp.quote("ETH", "USD", "100", "eip155:31337")
    bought_wei = int(Decimal(quote["purchaseAmount"]).scaleb(18))
    session = dev_session(networks=cfg.known_networks())
    session.connect_wallet()
    session.settle_call("balances", samples.balances(bought_wei, {}))
    native = session.model.accounts.get("eip155").token_balance[0]
    assert native.symbol == "ETH"
    assert native.value == pytest.approx(99.0, abs=0.01)
    assert native.price == DEV_ETH_PRICE


@pytest.mark.parametrize(("network_id", "symbol"), [
    ("eip155:31337", "ETH"), ("eip155:31337", "DEMO"), ("eip155:31337", "TUSD"), (SOLANA_LOCAL, "SOL"),
])
def test_the_local_onramp_quotes_at_the_configured_price(network_id: str, symbol: str) -> None:
    cfg = config()
    entry = cfg.networks[network_id]
    price = entry.native_price if symbol in ("ETH", "SOL") else next(t.price for t in entry.tokens if t.symbol == symbol)
    assert price
    onramp = local_onramp(cfg)
    assert onramp is not None
    bought = Decimal(onramp.quote(symbol, "USD", "100", network_id)["purchaseAmount"])
    assert float(bought) * price == pytest.approx(99.0, rel=1e-4)


def test_an_unpriced_currency_is_not_offered() -> None:
    cfg = config()
    cfg.networks["eip155:31338"] = cfg.networks["eip155:31338"].model_copy(update={"native_price": None})
    onramp = local_onramp(cfg)
    assert onramp is not None
    assert onramp.options("eip155:31338")["purchaseCurrencies"] == []


def test_the_dev_pools_are_funded_at_the_configured_prices() -> None:
    """Swap quotes on the dev chains follow the same prices: each pool's two sides are worth the
    same in USD."""
    prices = {"ETH": DEV_ETH_PRICE, **TOKEN_PRICES}
    for pool in POOLS:
        assert pool.a_units * prices[pool.a] == pytest.approx(pool.b_units * prices[pool.b]), pool
