"""Swap figures (issue 16, "Measure") on the production path: the engine app as `serve` builds it
(`create_app` with the dev chains' networks from its config and their Uniswap V2 markets, as the
dev rigs give them to `make run`), under uvicorn, one session over a real websocket; this process
plays the renderer (it keeps the tree from the snapshot and patches) and the wallet (Hardhat's
unlocked account: wallet requests go to the node as they are).

- typing an amount → quote shown: the `change` intent sent until the patch that draws the quote
  (the `swap_quote` service's getAmountsOut and friends over JSON-RPC to the local node, the
  websocket both ways), less the debounce the engine waits before it asks;
- swap press → wallet request sent: the confirm press until its `eth_sendTransaction` effect frame;
- the whole swap round trip: press → the node's answer (the effect result sent) → Account drawn.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx

from modalcore import samples
from modalcore.server.config import dev_networks
from modalcore.server.rigs import DevRigs
from modalcore.services.backend.swap.uniswap_v2 import UniswapV2Market
from modalcore.slices.swap_quote import QUOTE_DEBOUNCE_MS
from modalcore.wire.diff import apply
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Lines, line, summary
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_testing import Client, find_node, make_test_config, start_server

QUOTES = 200
SWAPS = 30
STEP_S = 60.0
WALLET_NODE = f"connect/wallet/{samples.DEV_WALLET['rdns']}"


class _Page:
    """The renderer's part (the tree) and the wallet's (the node's unlocked account)."""

    def __init__(self, client: Client, http: httpx.AsyncClient, rpc_url: str, user: str) -> None:
        self.client = client
        self.http = http
        self.rpc_url = rpc_url
        self.user = user
        self.tree: dict[str, Any] | None = None
        self.effects: list[dict[str, Any]] = []  # wallet requests not answered yet
        self.connected = False
        self.open = False  # the modal, as the host's state event says

    def take(self, frame: dict[str, Any]) -> None:
        if frame["t"] == "snapshot":
            self.tree = frame["tree"]
        elif frame["t"] == "patch" and self.tree is not None:
            self.tree = apply(self.tree, frame["ops"])
        elif frame["t"] == "effect":
            self.effects.append(frame)
        elif frame["t"] == "host_event" and frame.get("kind") == "account":
            self.connected = frame["data"].get("isConnected") is True
        elif frame["t"] == "host_event" and frame.get("kind") == "state":
            self.open = frame["data"].get("open") is True
        elif frame["t"] in ("error", "goodbye"):
            raise RuntimeError(f"the engine sent {frame['t']}: {frame.get('message')}")

    async def until(self, done: Callable[[_Page], bool]) -> None:
        deadline = time.monotonic() + STEP_S
        while not done(self):
            try:
                self.take(await self.client.recv(max(0.1, deadline - time.monotonic())))
            except TimeoutError:
                raise RuntimeError(f"the page never showed what the bench waited for in {STEP_S:.0f} s "
                                   f"(views {self.views()}, review {self.text('swap/review')!r}, "
                                   f"wallet requests {[e['req']['method'] for e in self.effects]})") from None

    async def answer(self, effect: dict[str, Any]) -> None:
        """The wallet: accounts and chain at once, anything else from the node."""
        self.effects.remove(effect)
        req = effect["req"]
        if req["method"] in ("eth_requestAccounts", "eth_accounts"):
            result: Any = [self.user.lower()]
        elif req["method"] == "eth_chainId":
            result = "0x7a69"
        else:
            body = {"jsonrpc": "2.0", "id": 1, "method": req["method"], "params": req.get("params", [])}
            reply = (await self.http.post(self.rpc_url, json=body)).json()
            if "error" in reply:
                await self.client.send({"t": "effect_result", "eid": effect["eid"], "ok": False,
                                        "error": {"code": 4001, "message": str(reply["error"].get("message"))}})
                return
            result = reply.get("result")
        await self.client.send({"t": "effect_result", "eid": effect["eid"], "ok": True, "result": result})

    async def answer_all(self) -> None:
        while self.effects:
            await self.answer(self.effects[0])

    def node(self, node_id: str) -> dict[str, Any] | None:
        return find_node(self.tree, node_id)

    def text(self, node_id: str) -> str:
        found = self.node(node_id)
        return str(found["p"].get("text", "")) if found is not None else ""

    def views(self) -> list[str]:
        """The names of the views the tree shows."""
        out: list[str] = []

        def walk(node: dict[str, Any]) -> None:
            if node.get("t") == "view" and not node["p"].get("hidden"):
                out.append(str(node["p"].get("name")))
            for child in node.get("c", ()):
                walk(child)

        if self.tree is not None:
            walk(self.tree)
        return out

    def quoted(self) -> bool:
        review = self.node("swap/review")
        if self.node("swap/error") is not None:
            raise RuntimeError(f"no quote: {self.text('swap/error')}")
        return review is not None and review["p"].get("text") == "Review swap" and not review["p"].get("disabled")


async def _connect(page: _Page) -> None:
    client = page.client
    for frame in await client.join(wallets=[samples.DEV_WALLET],
                                   opts={"networks": ["eip155:31337", "eip155:31338"]}):
        page.take(frame)
    await client.intent("host", "open")
    await page.until(lambda p: p.node(WALLET_NODE) is not None)
    await client.intent(WALLET_NODE, "press")
    while not page.connected:
        await page.until(lambda p: bool(p.effects) or p.connected)
        await page.answer_all()
    await asyncio.sleep(0.2)
    for frame in await client.quiet(0.3):
        page.take(frame)
    if not page.open:  # connecting closed the modal
        await client.intent("host", "open")
        await page.until(lambda p: p.open and p.node("account/feature/swaps") is not None)


async def _quote_ms(page: _Page, amount: str) -> float:
    """The typing intent sent → the quote drawn, less the debounce."""
    await asyncio.sleep(0.05)  # a visitor's pace: no intent is rate limited
    start = time.perf_counter()
    await page.client.intent("swap/amount", "change", {"value": amount})
    await page.until(lambda p: not p.quoted())  # the typing drawn (the quote forgotten, the next one coming)
    await page.until(lambda p: p.quoted())
    return (time.perf_counter() - start) * 1000 - QUOTE_DEBOUNCE_MS


async def _swap_ms(page: _Page) -> tuple[float, float]:
    """(press → effect frame, press → Account drawn after the node's answer)."""
    await page.client.intent("swap/review", "press")
    await page.until(lambda p: p.node("swap-preview/confirm") is not None)
    await asyncio.sleep(0.05)
    start = time.perf_counter()
    await page.client.intent("swap-preview/confirm", "press")
    await page.until(lambda p: any(e["req"]["method"] == "eth_sendTransaction" for e in p.effects))
    sent = (time.perf_counter() - start) * 1000
    await page.answer(next(e for e in page.effects if e["req"]["method"] == "eth_sendTransaction"))
    await page.until(lambda p: "Account" in p.views())
    done = (time.perf_counter() - start) * 1000
    return sent, done


async def _measure(url: str, chains: ChainsInfo, quotes: int, swaps: int) -> tuple[list[float], list[float], list[float]]:
    user = chains.chain(31337)["accounts"][2]
    demo = next(t["address"] for t in chains.chain(31337)["tokens"] if t["symbol"] == "DEMO")
    async with Client.open(url) as client, httpx.AsyncClient(timeout=30) as http:
        page = _Page(client, http, chains.rpc_urls[31337], user)
        await _connect(page)
        await client.intent("account/feature/swaps", "press")
        await page.until(lambda p: p.node("swap/to/token") is not None)
        await client.intent("swap/to/token", "press")
        await page.until(lambda p: p.node(f"swap/pick/to/{demo}") is not None)
        await client.intent(f"swap/pick/to/{demo}", "press")
        await page.until(lambda p: p.node("swap/amount") is not None)
        for i in range(min(quotes, 5)):
            await _quote_ms(page, f"0.{i + 1}")  # warm up
        quoted = [await _quote_ms(page, f"{(i % 97) / 100 + 0.01:.2f}") for i in range(quotes)]
        sent: list[float] = []
        done: list[float] = []
        for _ in range(swaps):
            if page.node("swap/amount") is None:
                await client.intent("account/feature/swaps", "press")
                await page.until(lambda p: p.node("swap/amount") is not None)
            await _quote_ms(page, "0.03")  # not the amount quoted last: typing it is a change
            to_effect, round_trip = await _swap_ms(page)
            sent.append(to_effect)
            done.append(round_trip)
    return quoted, sent, done


def run(parts: Parts) -> Lines:
    quotes, swaps = parts.size(QUOTES), parts.size(SWAPS)
    with parts.dev_chains() as chains:
        config = make_test_config(networks=dev_networks(chains.rpc_urls, chains.deployment))
        markets = {cid: UniswapV2Market.from_deployment(chains.chain(cid)) for cid in chains.chain_ids}
        with start_server(config, rigs=DevRigs(swap_markets=markets)) as engine:
            quoted, sent, done = asyncio.run(_measure(engine.ws_url(), chains, quotes, swaps))
    q, s, d = summary(quoted), summary(sent), summary(done)
    return [
        "Swap (engine app under uvicorn, one websocket session, local Hardhat node, Uniswap V2 market):",
        line("typing → quote shown p50 (debounce excluded)", f"{q['p50']:.2f} ms", measured=[q["p50"]]),
        line("typing → quote shown p99 (debounce excluded)", f"{q['p99']:.2f} ms", measured=[q["p99"]]),
        line("debounce before a quote is asked", f"{QUOTE_DEBOUNCE_MS} ms"),
        line("swap press → wallet request sent p50", f"{s['p50']:.3f} ms", measured=[s["p50"]]),
        line("swap press → wallet request sent p99", f"{s['p99']:.3f} ms", measured=[s["p99"]]),
        line("swap round trip (press → node → Account drawn) p50", f"{d['p50']:.2f} ms", measured=[d["p50"]]),
        line("swap round trip p99", f"{d['p99']:.2f} ms", measured=[d["p99"]]),
    ]


if __name__ == "__main__":
    print("\n".join(map(str, run(Parts()))))
