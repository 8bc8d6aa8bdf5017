"""Smart-account figures on the production path (issue 32): an engine server with the embedded
wallet and smart accounts on a Hardhat chain with a real bundler (alto), one websocket session
signed in by email (the code POSTed by the sign-in frame with its device key), then:

- Approve → receipt: the host's `eth_sendTransaction` from the smart account, the approval
  frame's outcome settled (the bundler's check, issue 43: not in the figure, as the visitor
  reads the approval before pressing Approve), then its signed Approve POST (what the frame does without a browser: /embedded/approve/begin,
  the challenge signed by the device key, /embedded/approve), the UserOperation built, sponsored,
  sent and followed to its receipt, until the host's `rpc` answer (the transaction hash);
- wallet_sendCalls (two calls): Approve → the calls id answered, and → `wallet_getCallsStatus` 200;
- round trips to the bundler per operation (a counting proxy in front of alto), by method:
  machine-independent except the receipt polls, which follow the block time.
"""

from __future__ import annotations

import asyncio
import collections
import json
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from eth_account import Account
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from modalcore.embedded.masterkey import MasterKey
from modalcore.server.app import create_app
from modalcore.server.config import dev_networks, parse_config
from modalcore_dev.bench.embedded_client import TIMEOUT_S, answers, approve, ask, begin, sign_in
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Figure, Lines, line, summary
from modalcore_dev.devchain.smart_accounts import dev_smart_accounts_section
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client, serve_app
from modalcore_testing.device import DeviceKey

SENDS = 10
BATCHES = 5
CENT = 10**16
FUNDS = 10**18


class _CountingProxy:
    """Forwards JSON-RPC to the bundler and counts the methods asked."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.counts: collections.Counter[str] = collections.Counter()
        self.sent_at = 0.0  # perf_counter when eth_sendUserOperation last reached the bundler
        self.waited_s = 0.0  # time spent waiting on the bundler's answers since cleared
        self.app = Starlette(routes=[Route("/", self.forward, methods=["POST"])])

    async def forward(self, request: Request) -> Response:
        body = await request.body()
        parsed = json.loads(body)
        for call in parsed if isinstance(parsed, list) else [parsed]:
            self.counts[str(call.get("method"))] += 1
            if call.get("method") == "eth_sendUserOperation":
                self.sent_at = time.perf_counter()
        start = time.perf_counter()
        async with httpx.AsyncClient(timeout=30) as http:
            answer = await http.post(self.target, content=body, headers={"content-type": "application/json"})
        self.waited_s += time.perf_counter() - start
        return Response(answer.content, answer.status_code, media_type="application/json")


@contextmanager
def smart_engine(folder: Path, chains: Any, bundler_url: str, smtp_port: int) -> Iterator[tuple[str, _CountingProxy]]:
    proxy = _CountingProxy(bundler_url)
    with serve_app(proxy.app) as proxied:
        section = dev_smart_accounts_section(chains.deployment, {31337: proxied.http_url + "/"}, (TEST_PROJECT,))
        section["sponsor"]["budget_wei_per_day"] = 10**19
        key_file = folder / "master.key"
        key_file.write_text(MasterKey.generate().hex())
        config = parse_config({
            "secret": TEST_SECRET,
            "projects": {TEST_PROJECT: {"name": "Bench dApp", "origins": [TEST_ORIGIN]}},
            "networks": dev_networks({31337: chains.rpc_urls[31337]}, chains.deployment),
            "smart_accounts": section,
            "embedded": {"db": str(folder / "embedded.db"), "master_key_file": str(key_file),
                         # the simulation section signs in from 127.0.0.1 once per round
                         "mail_budget": {"address_per_minute": 0, "address_per_hour": 0},
                         "smtp": {"host": "127.0.0.1", "port": smtp_port, "tls": "none",
                                  "sender": "Wallet <no-reply@modal.test>"}},
        })
        with serve_app(create_app(config)) as engine:
            yield engine.http_url, proxy


async def _calls_status(client: Client, calls_id: str) -> dict[str, Any]:
    for attempt in range(int(TIMEOUT_S / 0.05)):
        await client.intent("host", "rpc", {"id": f"s{attempt}", "method": "wallet_getCallsStatus", "params": [calls_id]})
        frames = await client.recv_until(lambda f: bool(answers([f])), timeout=TIMEOUT_S)
        status: dict[str, Any] = answers(frames)[-1]["result"]
        if status["status"] != 100:
            return status
        await asyncio.sleep(0.05)
    raise RuntimeError("the calls never settled")


def run(parts: Parts) -> Lines:
    sends_wanted, batches_wanted = parts.size(SENDS), parts.size(BATCHES)
    smtp = LocalSmtpServer().start()
    try:
        with tempfile.TemporaryDirectory() as folder, parts.dev_chains() as chains, \
                parts.bundler(chains) as bundler, \
                smart_engine(Path(folder), chains, bundler, smtp.port) as (url, proxy):

            async def measure() -> tuple[list[float], list[float], list[float], list[float], list[float], list[dict[str, int]],
                                         list[dict[str, int]]]:
                device = DeviceKey()
                sends, to_bundler, in_bundler, batch_ids, batch_done, send_trips, batch_trips = [], [], [], [], [], [], []
                async with Client.open(url.replace("http", "ws") + f"/ws?project={TEST_PROJECT}", origin=TEST_ORIGIN,
                                       project=TEST_PROJECT) as client, \
                        httpx.AsyncClient(base_url=url, timeout=TIMEOUT_S) as http:
                    smart = await sign_in(client, http, smtp, device, "bench-aa@example.com", ["eip155:31337"])
                    with chains.rpc(31337) as rpc:
                        rpc.call("hardhat_setBalance", [smart, hex(FUNDS)])
                    for n in range(sends_wanted + 1):  # the first deploys the account: not in the figure
                        eid = await ask(client, f"t{n}", "eth_sendTransaction",
                                         [{"from": smart, "to": Account.create().address, "value": hex(CENT)}])
                        begun = await begin(client, http, eid, device)  # the outcome shown (the bundler's check)
                        proxy.counts.clear()
                        proxy.waited_s = 0.0
                        start = time.perf_counter()
                        await approve(client, http, eid, device, begun)
                        if n:
                            sends.append(1000 * (time.perf_counter() - start))
                            to_bundler.append(1000 * (proxy.sent_at - start))
                            in_bundler.append(1000 * proxy.waited_s)
                            send_trips.append(dict(proxy.counts))
                    for n in range(batches_wanted):
                        calls = [{"to": Account.create().address, "value": hex(1)} for _ in range(2)]
                        batch = {"version": "2.0.0", "chainId": "0x7a69", "from": smart, "atomicRequired": True,
                                 "calls": calls}
                        eid = await ask(client, f"b{n}", "wallet_sendCalls", [batch])
                        begun = await begin(client, http, eid, device)
                        proxy.counts.clear()
                        start = time.perf_counter()
                        sent = await approve(client, http, eid, device, begun)
                        batch_ids.append(1000 * (time.perf_counter() - start))
                        status = await _calls_status(client, sent["result"]["id"])
                        batch_done.append(1000 * (time.perf_counter() - start))
                        batch_trips.append(dict(proxy.counts))
                        if status["status"] != 200 or len(status["receipts"]) != 1:
                            raise RuntimeError(f"the calls did not succeed as one operation: {status}")
                return sends, to_bundler, in_bundler, batch_ids, batch_done, send_trips, batch_trips

            sends, to_bundler, in_bundler, batch_ids, batch_done, send_trips, batch_trips = asyncio.run(measure())
    finally:
        smtp.stop()
    return [
        "smart accounts through the engine (websocket session, signed Approve POST, alto, Hardhat automine)",
        _ms(f"Approve → receipt → host answer, sponsored send, n={sends_wanted}", sends),
        _ms("  of which Approve → operation sent to the bundler", to_bundler),
        _ms("  of which waiting on the bundler's answers", in_bundler),
        _trips("  bundler round trips per send", send_trips),
        _ms(f"wallet_sendCalls (2 calls) Approve → calls id, n={batches_wanted}", batch_ids),
        _ms("  Approve → wallet_getCallsStatus 200", batch_done),
        _trips("  bundler round trips per batch", batch_trips),
    ]


def _ms(name: str, samples: list[float]) -> Figure:
    stats = summary(samples)
    return line(name, f"p50 {stats['p50']:.0f} ms, p90 {stats['p90']:.0f} ms", measured=[stats["p50"], stats["p90"]])


def _trips(name: str, per_operation: list[dict[str, int]]) -> Figure:
    return line(name, _trip_text(per_operation), measured=[sorted(sum(c.values()) for c in per_operation)[len(per_operation) // 2]])


def _trip_text(per_operation: list[dict[str, int]]) -> str:
    """Each method's count per operation (min–max when it varies), and the total's median."""
    methods = sorted({m for counts in per_operation for m in counts})
    parts = []
    for method in methods:
        seen = [counts.get(method, 0) for counts in per_operation]
        parts.append(f"{method.removeprefix('eth_')} {min(seen)}" + (f"–{max(seen)}" if max(seen) != min(seen) else ""))
    totals = sorted(sum(counts.values()) for counts in per_operation)
    return f"{totals[len(totals) // 2]} ({', '.join(parts)})"


if __name__ == "__main__":
    for text in run(Parts()):
        print(text)
