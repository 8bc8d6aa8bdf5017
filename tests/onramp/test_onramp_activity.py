"""Onramp transactions appear in Activity (issue 16 Buy; behaviour.md §3 history store
`coinbaseTransactions`, §7 history call `onramp`): with the hosted Blockchain API, the first
Activity page also asks the history call with `onramp=coinbase`, and those transactions are
drawn as purchases. Tested with a recorded hosted answer and the exact requests sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from modalcore import samples
from modalcore.services.backend.blockchain_api import BlockchainApi
from modalcore.services.backend.table import default_services
from modalcore.services.domain.handles import HISTORY

from ..swap.harness import connected

RECORDED = json.loads((Path(__file__).parent / "recorded" / "coinbase_history.json").read_text())
ACCOUNT = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


def _hosted(answers: dict[str, Any]) -> tuple[list[httpx.Request], httpx.AsyncClient]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        key = request.url.params.get("onramp", "")
        answer = answers.get(key)
        return httpx.Response(200, json=answer) if answer is not None else httpx.Response(503)

    return seen, httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def _history(http: httpx.AsyncClient, **args: Any) -> Any:
    services = default_services(http, BlockchainApi(http, "https://rpc.example", "proj1"))
    return await services[HISTORY](rpc_url="http://node", address=ACCOUNT, chain="eip155:31337",
                                     limit=10, native_name="Ether", native_symbol="ETH",
                                     native_decimals=18, **args)


async def test_the_first_hosted_page_also_asks_for_coinbase_transactions_and_marks_them() -> None:
    chain_tx = samples.transaction("0x" + "cd" * 32)
    seen, http = _hosted({"": {"data": [chain_tx], "next": "c2"}, "coinbase": RECORDED})
    async with http:
        result = await _history(http, cursor=None, onramp="coinbase")
    assert [(r.method, r.url.path, list(r.url.params.multi_items())) for r in seen] == [
        ("GET", f"/v1/account/{ACCOUNT}/history",
         [("projectId", "proj1"), ("st", "html-wagmi-4.2.2"), ("sv", "4"), ("chainId", "eip155:31337")]),
        ("GET", f"/v1/account/{ACCOUNT}/history",
         [("projectId", "proj1"), ("st", "html-wagmi-4.2.2"), ("sv", "4"), ("onramp", "coinbase"),
          ("chainId", "eip155:31337")]),
    ]
    assert result["next"] == "c2"  # the account's cursor: later pages are the account's only
    assert result["data"] == [chain_tx, {**RECORDED["data"][0], "onramp": "coinbase"}]


async def test_later_pages_do_not_ask_for_onramp_transactions_again() -> None:
    seen, http = _hosted({"": {"data": [], "next": None}, "coinbase": RECORDED})
    async with http:
        await _history(http, cursor="c2", onramp=None)
    assert [r.url.params.get("onramp") for r in seen] == [None]
    assert seen[0].url.params.get("cursor") == "c2"


async def test_a_failed_onramp_call_keeps_the_account_page() -> None:
    chain_tx = samples.transaction("0x" + "cd" * 32)
    seen, http = _hosted({"": {"data": [chain_tx], "next": None}})  # onramp=coinbase answers 503
    async with http:
        result = await _history(http, cursor=None, onramp="coinbase")
    assert len(seen) == 2
    assert result == {"data": [chain_tx], "next": None}


def test_activity_asks_for_onramp_on_the_first_page_and_draws_a_purchase() -> None:
    h = connected()
    h.intent("account/tabs", "select", {"value": "2"})
    calls = h.calls("history")
    assert calls and calls[-1].args_data["onramp"] == "coinbase" and calls[-1].args_data["cursor"] is None
    bought = {**RECORDED["data"][0], "onramp": "coinbase"}
    h.settle_call("history", samples.history(samples.transaction("0x" + "cd" * 32), bought))
    assert [tx.id for tx in h.model.history.coinbase_transactions] == [bought["id"]]
    item = next(n for n in h.tree.walk() if n.id == f"account/activity/tx/{bought['id']}")
    assert (item.p["title"], item.p["subtitle"], item.p["amount"], item.p["status"]) == (
        "Bought", "Coinbase", "+25.120 USDC", "confirmed")
    sent = next(n for n in h.tree.walk() if n.id == f"account/activity/tx/{'0x' + 'cd' * 32}")
    assert sent.p["title"] == "Sent"  # the account's own transactions are drawn as before


def test_a_local_onramp_purchase_is_drawn_as_bought_not_received() -> None:
    h = connected()
    h.intent("account/tabs", "select", {"value": "2"})
    tx = {**samples.transaction("0x" + "ef" * 32, symbol="TUSD", quantity="19.8", direction="in"),
          "onramp": "local"}
    h.settle_call("history", samples.history(tx))
    item = next(n for n in h.tree.walk() if n.id == f"account/activity/tx/{'0x' + 'ef' * 32}")
    assert (item.p["title"], item.p["subtitle"], item.p["amount"]) == ("Bought", "Local onramp", "+19.800 TUSD")
