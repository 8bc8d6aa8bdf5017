"""Balances in the Account view equal what the real Hardhat node reports (issue 4)."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import httpx
import pytest

from modalcore.enginetest import Harness
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.core.cmds import CallSettled
from modalcore.rules.format import floor3
from modalcore.services.backend.balances import fetch_balances
from modalcore.services.domain.shapes import BalancesResult

from ..devwallet import chain_networks
from .conftest import ADDRESS, dev_session

pytestmark = pytest.mark.chain
RECEIVER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"


def _driver(chains: ChainsInfo) -> Harness:
    return dev_session(networks=chain_networks(chains.rpc_urls, chains.deployment))


def _fetch(driver: Harness) -> None:
    call = driver.calls("balances")[-1]

    async def run() -> BalancesResult:
        async with httpx.AsyncClient() as http:
            return await fetch_balances(http, **call.args_data)

    driver.deliver(CallSettled(call.to, True, asyncio.run(run())))


def _node_balance(chains: ChainsInfo, address: str) -> int:
    with chains.rpc(31337) as rpc:
        return int(rpc.call("eth_getBalance", [address, "latest"]), 16)


def test_account_balance_equals_the_node_before_and_after_a_real_transfer(devchain: ChainsInfo) -> None:
    driver = _driver(devchain)
    driver.connect_wallet()
    _fetch(driver)
    expected = floor3(Decimal(_node_balance(devchain, ADDRESS)) / Decimal(10**18))
    assert driver.node("account/balance").p["text"] == f"{expected} ETH"

    with devchain.rpc(31337) as rpc:
        tx = rpc.call("eth_sendTransaction", [{"from": ADDRESS, "to": RECEIVER, "value": hex(12_345 * 10**15)}])
        rpc.call("eth_getTransactionReceipt", [tx])

    driver.advance(30_000)  # past the native-balance cache
    driver.intent("host", "switch_network", {"network": "eip155:31338"})
    driver.answer_last(None)
    driver.intent("host", "switch_network", {"network": "eip155:31337"})
    driver.answer_last(None)
    _fetch(driver)
    after = floor3(Decimal(_node_balance(devchain, ADDRESS)) / Decimal(10**18))
    assert after != expected
    assert driver.node("account/balance").p["text"] == f"{after} ETH"


def test_a_token_with_six_decimals_displays_correctly(devchain: ChainsInfo) -> None:
    driver = _driver(devchain)
    driver.connect_wallet(address=RECEIVER)
    _fetch(driver)
    tusd = devchain.token(31337, "TUSD")
    row = driver.node(f"account/token/{tusd['address']}")
    raw = int(devchain.chain(31337)["funding"]["TUSD"][RECEIVER])
    assert raw == 10_000 * 10**6
    assert row.p["amount"] == floor3(Decimal(raw) / Decimal(10**6))
    assert row.p["symbol"] == "TUSD"
    assert row.p["value"] == "$" + f"{Decimal(raw) / Decimal(10**6):,.2f}"
