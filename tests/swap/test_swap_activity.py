"""Activity shows a swap as one entry with both legs (issue 16 "Approve then swap"): the
history service names a transaction that sent something out and got something back a "trade",
and the Activity tab draws it once, what went out and what came in."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import httpx
import pytest

from modalcore import samples
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.services.backend.history import fetch_history
from modalcore.services.domain.shapes import HistoryResult

from .chain_harness import ChainHarness
from .harness import HASH, connected


def swap_tx() -> dict[str, object]:
    tx = samples.transaction(HASH, operation="trade", symbol="ETH", quantity="1", direction="out")
    demo_in = {"fungible_info": {"name": "Demo Token", "symbol": "DEMO", "icon": {"url": ""}},
               "direction": "in", "quantity": {"numeric": "977.508480891"}}
    tx["transfers"] = [*tx["transfers"], demo_in]
    return tx


def test_a_trade_is_one_activity_entry_with_both_legs() -> None:
    h = connected()
    h.intent("account/tabs", "select", {"value": "2"})
    h.settle_call("history", samples.history(swap_tx()))
    items = [n for n in h.tree.walk() if n.t == "activity-item"]
    assert len(items) == 1
    assert (items[0].p["title"], items[0].p["subtitle"], items[0].p["amount"]) == (
        "Swapped", "-1.000 ETH", "+977.508 DEMO")


@pytest.mark.chain
def test_the_history_service_names_a_swap_a_trade_with_both_legs(devchain: ChainsInfo) -> None:
    user = devchain.chain(31337)["accounts"][2]
    demo, tusd = devchain.token(31337, "DEMO")["address"], devchain.token(31337, "TUSD")["address"]
    h = ChainHarness(devchain, user)
    h.open_swap()
    h.quote("1", "native", demo)
    h.press("swap/review")
    h.press("swap-preview/confirm")
    h.pump()
    h.press("account/feature/swaps")
    h.quote("10", demo, tusd)
    h.press("swap/review")
    h.press("swap-preview/confirm")
    h.pump()
    assert len(h.sent) == 3  # ETH→DEMO; approve DEMO; DEMO→TUSD

    async def history() -> HistoryResult:
        async with httpx.AsyncClient() as http:
            return await fetch_history(http, rpc_url=devchain.rpc_urls[31337], address=user,
                                       chain="eip155:31337")

    data: list[Any] = list(asyncio.run(history())["data"])
    by_hash = {tx["id"]: tx for tx in data}
    eth_demo, demo_tusd = by_hash[h.sent[0]], by_hash[h.sent[2]]
    assert h.sent[1] not in by_hash  # the approval moves no token: not an Activity entry
    assert eth_demo["metadata"]["operationType"] == "trade"
    assert [(t["fungible_info"]["symbol"], t["direction"]) for t in eth_demo["transfers"]] == [
        ("ETH", "out"), ("DEMO", "in")]
    assert demo_tusd["metadata"]["operationType"] == "trade"
    assert [(t["fungible_info"]["symbol"], t["direction"]) for t in demo_tusd["transfers"]] == [
        ("DEMO", "out"), ("TUSD", "in")]


@pytest.mark.chain
def test_a_token_to_eth_swap_shows_the_eth_the_router_paid_out_exactly(devchain: ChainsInfo) -> None:
    """The ETH of a token→ETH swap comes back as an internal transfer (the router unwraps WETH
    and sends it on): no block or Transfer log shows it, so the indexer reads the WETH
    `Withdrawal` of the router in the account's own router call; the entry has both legs and
    the ETH leg is exactly what the account's balance gained (fee added back)."""
    user = devchain.chain(31337)["accounts"][3]
    tusd = devchain.token(31337, "TUSD")["address"]
    h = ChainHarness(devchain, user)
    h.open_swap()
    h.quote("1", "native", tusd)  # the account has no TUSD yet: buy some first
    h.press("swap/review")
    h.press("swap-preview/confirm")
    h.pump()
    h.press("account/feature/swaps")
    h.quote("100", tusd, "native")
    h.press("swap/review")
    h.press("swap-preview/confirm")
    h.pump()
    assert len(h.sent) == 3  # ETH→TUSD; approve TUSD; TUSD→ETH
    receipt = h.rpc("eth_getTransactionReceipt", [h.sent[2]])
    assert int(receipt["status"], 16) == 1
    block = int(receipt["blockNumber"], 16)
    before = int(h.rpc("eth_getBalance", [user, hex(block - 1)]), 16)
    after = int(h.rpc("eth_getBalance", [user, hex(block)]), 16)
    fee = int(receipt["gasUsed"], 16) * int(receipt["effectiveGasPrice"], 16)
    received = after - before + fee
    assert received > 0

    async def history() -> HistoryResult:
        async with httpx.AsyncClient() as http:
            return await fetch_history(http, rpc_url=devchain.rpc_urls[31337], address=user,
                                       chain="eip155:31337")

    page = asyncio.run(history())
    by_hash = {tx["id"]: tx for tx in page["data"]}
    tusd_eth: Any = by_hash[h.sent[2]]
    assert tusd_eth["metadata"]["operationType"] == "trade"
    assert [(t["fungible_info"]["symbol"], t["direction"], t["quantity"]["numeric"])
            for t in tusd_eth["transfers"]] == [
        ("TUSD", "out", "100"), ("ETH", "in", format(Decimal(received).scaleb(-18).normalize(), "f"))]

    h.intent("account/tabs", "select", {"value": "2"})
    h.pump()
    item = next(n for n in h.tree.walk()
                if n.t == "activity-item" and n.id == f"account/activity/tx/{h.sent[2]}")
    assert (item.p["title"], item.p["subtitle"]) == ("Swapped", "-100.000 TUSD")
    assert item.p["amount"].startswith("+0.") and item.p["amount"].endswith(" ETH")
