"""Balances in the Account view: formatting, retry window, caches (behaviour.md §4, §5, §9)."""

from __future__ import annotations

from dataclasses import replace

from modalcore.enginetest import Harness
from modalcore.chains.catalog import Token
from modalcore.rules.format import fiat, floor3
from modalcore.server.config import dev_networks
from modalcore_dev.solana_devchain.network import solana_dev_network

from .conftest import dev_session

TUSD = Token("0x5FbDB2315678afecb367f032d93F642f64180aa3", "TUSD", "Test USD", 6, price=1.0)
ZERO = Token("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512", "ZERO", "Zero decimals", 0)


def _with_tokens(driver: Harness) -> None:
    known = tuple(replace(n, tokens=(TUSD, ZERO)) if n.id == "eip155:31337" else n
                  for n in driver.model.networks.known)
    driver.session.model = replace(driver.model, networks=replace(driver.model.networks, known=known))


def test_balance_is_floored_to_three_decimals() -> None:
    assert floor3("1.23999") == "1.239"
    assert floor3("0") == "0.000"
    assert floor3("0.0009") == "0.000"


def test_fiat_has_two_decimals() -> None:
    assert fiat(12.345) == "12.35"
    assert fiat("3") == "3.00"


def test_account_view_shows_the_native_balance(driver: Harness) -> None:
    driver.connect_wallet()
    driver.settle(driver.calls("balances")[-1], {"native": str(9_999_123_456_789_000_000_000), "tokens": {}})
    assert driver.node("account/balance").p["text"] == "9,999.123 ETH"


def test_token_with_six_decimals_and_a_price_shows_fiat(driver: Harness) -> None:
    _with_tokens(driver)
    driver.connect_wallet()
    driver.settle(driver.calls("balances")[-1], {"native": str(10**18), "tokens": {TUSD.address: "1234567890", ZERO.address: "5"}})
    row = driver.node(f"account/token/{TUSD.address}")
    assert row.p["amount"] == "1,234.567"
    assert row.p["symbol"] == "TUSD"
    assert row.p["value"] == "$1,234.57"


def test_tokens_with_zero_decimals_are_dropped(driver: Harness) -> None:
    _with_tokens(driver)
    driver.connect_wallet()
    driver.settle(driver.calls("balances")[-1], {"native": str(10**18), "tokens": {TUSD.address: "1", ZERO.address: "5"}})
    assert driver.find(f"account/token/{ZERO.address}") is None


def test_failed_fetch_shows_the_snack_and_blocks_retries_for_30_s(driver: Harness) -> None:
    driver.connect_wallet()
    driver.settle(driver.calls("balances")[-1], {"native": str(0), "tokens": {}}, ok=False, error="boom")
    assert driver.model.snack.message == "Token Balance Unavailable"
    assert driver.model.snack.variant == "error"
    calls = len(driver.calls("balances"))
    driver.advance(29_999)
    driver.intent("host", "switch_network", {"network": "eip155:31338"})
    driver.answer_last(None)
    assert len(driver.calls("balances")) == calls
    driver.advance(1)
    driver.intent("host", "switch_network", {"network": "eip155:31337"})
    driver.answer_last(None)
    assert len(driver.calls("balances")) == calls + 1


def test_native_balance_is_cached_for_30_s(driver: Harness) -> None:
    from modalcore.slices.balances import fetch

    driver.connect_wallet()
    driver.settle(driver.calls("balances")[-1], {"native": str(10**18), "tokens": {}})
    model, cmds = fetch(driver.model, driver.now + 29_000)
    assert cmds == []
    model, cmds = fetch(driver.model, driver.now + 30_000)
    assert len(cmds) == 1


def test_test_networks_show_zero_without_fetching() -> None:
    d = dev_session({"networks": ["eip155:11155111"]})
    d.connect_wallet(chain_id=hex(11155111))
    assert d.model.accounts.get("eip155").balance == "0.00"
    assert d.calls("balances") == []


def test_skeletons_render_while_balances_load(driver: Harness) -> None:
    driver.connect_wallet()
    driver.intent("host", "open")
    assert driver.node("account/balance").t == "skeleton"
    driver.settle(driver.calls("balances")[-1], {"native": str(10**18), "tokens": {}})
    assert driver.node("account/balance").t == "text"


def test_an_empty_wallet_is_offered_ways_to_fund_it_instead_of_zeros(driver: Harness) -> None:
    """An embedded wallet with nothing on the network listed every token at 0: it gets AppKit's
    'Receive funds' and 'Buy Crypto' entries instead, each leading to its view."""
    _with_tokens(driver)
    driver.connect_wallet()
    driver.settle(driver.calls("balances")[-1], {"native": "0", "tokens": {TUSD.address: "0"}})
    assert driver.find(f"account/token/{TUSD.address}") is None
    assert driver.node("account/tokens/receive").p["title"] == "Receive funds"
    assert driver.node("account/tokens/buy").p["title"] == "Buy Crypto"
    driver.press("account/tokens/receive")
    assert driver.model.router.view == "WalletReceive"


def test_a_wallet_holding_something_lists_its_tokens(driver: Harness) -> None:
    _with_tokens(driver)
    driver.connect_wallet()
    driver.settle(driver.calls("balances")[-1], {"native": "0", "tokens": {TUSD.address: "5"}})
    assert driver.find(f"account/token/{TUSD.address}") is not None
    assert driver.find("account/tokens/receive") is None


def test_the_dev_chains_price_eth_sol_and_demo_as_their_pools_do() -> None:
    """ETH, SOL and DEMO showed no fiat value in the demo though its market prices them (ETH
    2,000 USD, DEMO 2 USD, devchain/market.py; SOL 150 USD, the local onramp's)."""
    evm = dev_networks({31337: "http://127.0.0.1:1"})["eip155:31337"]
    assert evm["native_price"] == 2000.0
    assert {t["symbol"]: t["price"] for t in evm["tokens"]}["DEMO"] == 2.0
    [sol] = solana_dev_network("http://127.0.0.1:1").values()
    assert sol["native_price"] == 150.0


def test_the_native_row_shows_its_fiat_value_where_the_network_prices_it(driver: Harness) -> None:
    known = tuple(replace(n, native_price=2000.0) if n.id == "eip155:31337" else n
                  for n in driver.model.networks.known)
    driver.session.model = replace(driver.model, networks=replace(driver.model.networks, known=known))
    driver.connect_wallet()
    driver.settle(driver.calls("balances")[-1], {"native": str(10**18 // 2), "tokens": {}})
    assert driver.node("account/token/native").p["value"] == "$1,000.00"
