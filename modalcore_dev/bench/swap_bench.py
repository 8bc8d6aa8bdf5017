"""Swap figures (issue 16, "Measure"), against real Hardhat nodes started for the run:

- typing an amount → quote shown, engine-side, excluding the debounce: from the debounce timer's
  message to the patch that draws the quote (the `swap_quote` service's getAmountsOut and
  friends over JSON-RPC to the local node included);
- swap press → wallet request sent: the press intent until the `eth_sendTransaction` effect frame;
- the whole swap round trip: press → the node's answer → the Account view drawn.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any

import httpx

from modalcore import samples
from modalcore.chains.catalog import Token, catalog
from modalcore.core.cmds import Call, CallSettled
from modalcore_dev.devchain.pytest_plugin import ChainsInfo, start_chains
from modalcore.enginetest import Harness
from modalcore.services.table import default_services
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.slices.swap_quote import QUOTE_DEBOUNCE_MS
from modalcore.wire.frames import AnnouncedWallet, Env
from modalcore_dev.bench.stats import line, summary

QUOTES = 200
SWAPS = 30


class _Bench:
    def __init__(self, info: ChainsInfo, user: str) -> None:
        entry = info.chain(31337)
        tokens = tuple(Token(t["address"], t["symbol"], t["name"], int(t["decimals"])) for t in entry["tokens"])
        known = catalog()
        networks = catalog([replace(known[f"eip155:{cid}"], rpc_urls=(url,), tokens=tokens)
                            for cid, url in info.rpc_urls.items()])
        model = initial_model("bench", "http://localhost:8000",
                              parse_options({"networks": ["eip155:31337", "eip155:31338"]}),
                              Env.model_validate(samples.ENV), [AnnouncedWallet.model_validate(samples.DEV_WALLET)],
                              known_networks=networks)
        self.h = Harness(model, wallets=[samples.DEV_WALLET])
        self.url = info.rpc_urls[31337]
        self.user = user
        self.demo = next(t.address for t in tokens if t.symbol == "DEMO")
        self.loop = asyncio.new_event_loop()
        self.http = self.loop.run_until_complete(self._client())
        self.services = default_services(self.http)

    async def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient()

    def close(self) -> None:
        self.loop.run_until_complete(self.http.aclose())
        self.loop.close()

    def run_calls(self) -> None:
        for cmd in [c for c in self.h.cmds if isinstance(c, Call)]:
            self.h.cmds.remove(cmd)
            try:
                result = self.loop.run_until_complete(self.services[cmd.service](**cmd.args_data))
                settled = CallSettled(cmd.to, True, result, "", dict(cmd.context))
            except Exception as error:  # noqa: BLE001 - a failure goes back as a message
                settled = CallSettled(cmd.to, False, None, str(error), dict(cmd.context))
            self.h.deliver(settled)

    def wallet(self, effect: dict[str, Any]) -> None:
        req = effect["req"]
        if req["method"] in ("eth_requestAccounts", "eth_accounts"):
            self.h.effect_result(effect["eid"], result=[self.user.lower()])
        elif req["method"] == "eth_chainId":
            self.h.effect_result(effect["eid"], result="0x7a69")
        else:
            body = {"jsonrpc": "2.0", "id": 1, "method": req["method"], "params": req["params"]}
            answer = self.loop.run_until_complete(self.http.post(self.url, json=body)).json()
            self.h.effect_result(effect["eid"], result=answer.get("result"))

    def connect(self) -> None:
        self.h.host("open")
        self.h.press(next(n.id for n in self.h.of_type("wallet-item") if n.p.get("name") == "Dev Wallet"))
        for _ in range(2):
            self.wallet(self.h.pending_effects()[0])
        self.run_calls()
        if not self.h.model.modal.open:
            self.h.host("open")

    def quote_ms(self, amount: str) -> float:
        """The debounce's message → the patch that draws the quote."""
        self.h.advance(QUOTE_DEBOUNCE_MS)  # a visitor's pace: no intent is rate limited
        if self.h.intent("swap/amount", "change", {"value": amount}) != "ok":
            raise RuntimeError(f"typing {amount} was refused")
        timer = self.h.timers.pop("swap-quote")
        start = time.perf_counter_ns()
        self.h.deliver(timer.msg)
        self.run_calls()
        elapsed = (time.perf_counter_ns() - start) / 1e6
        if self.h.model.swap.quote is None:
            raise RuntimeError(f"no quote for {amount}: {self.h.model.swap.quote_error}")
        return elapsed

    def swap_ms(self) -> tuple[float, float]:
        """(press → effect frame, press → Account drawn after the node's answer)."""
        self.h.advance(QUOTE_DEBOUNCE_MS)
        self.h.press("swap/review")
        start = time.perf_counter_ns()
        self.h.press("swap-preview/confirm")
        sent = (time.perf_counter_ns() - start) / 1e6
        effect = self.h.pending_effect("eth_sendTransaction")
        self.wallet(effect)
        done = (time.perf_counter_ns() - start) / 1e6
        if self.h.view != "Account":
            raise RuntimeError(f"the swap did not end on Account: {self.h.model.swap.error}")
        return sent, done


def run() -> list[str]:
    with start_chains() as info:
        user = info.chain(31337)["accounts"][2]
        bench = _Bench(info, user)
        try:
            bench.connect()
            bench.h.press("account/feature/swaps")
            bench.h.press("swap/to/token")
            bench.h.press(f"swap/pick/to/{bench.demo}")
            for i in range(20):
                bench.quote_ms(f"0.{i + 1}")  # warm up
            quotes = [bench.quote_ms(f"{(i % 97) / 100 + 0.01:.2f}") for i in range(QUOTES)]
            sent: list[float] = []
            done: list[float] = []
            for _ in range(SWAPS):
                bench.h.advance(QUOTE_DEBOUNCE_MS)
                if bench.h.view == "Account":
                    bench.h.press("account/feature/swaps")
                bench.quote_ms("0.01")
                to_effect, round_trip = bench.swap_ms()
                sent.append(to_effect)
                done.append(round_trip)
        finally:
            bench.close()
    q, s, d = summary(quotes), summary(sent), summary(done)
    return [
        "Swap (engine in process, local Hardhat node, Uniswap V2 market):",
        line("typing → quote shown p50 (debounce excluded)", f"{q['p50']:.2f} ms"),
        line("typing → quote shown p99 (debounce excluded)", f"{q['p99']:.2f} ms"),
        line("debounce before a quote is asked", f"{QUOTE_DEBOUNCE_MS} ms"),
        line("swap press → wallet request sent p50", f"{s['p50']:.3f} ms"),
        line("swap press → wallet request sent p99", f"{s['p99']:.3f} ms"),
        line("swap round trip (press → node → Account drawn) p50", f"{d['p50']:.2f} ms"),
        line("swap round trip p99", f"{d['p99']:.2f} ms"),
    ]


if __name__ == "__main__":
    print("\n".join(run()))
