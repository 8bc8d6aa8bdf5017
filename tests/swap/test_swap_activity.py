"""Activity shows a swap as one entry with both legs (issue 16 "Approve then swap"): the
history service names a transaction that sent something out and got something back a "trade",
and the Activity tab draws it once, what went out and what came in."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from modalcore import samples
from modalcore.devchain.pytest_plugin import ChainsInfo
from modalcore.services.history import fetch_history
from modalcore.services.shapes import HistoryResult

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
