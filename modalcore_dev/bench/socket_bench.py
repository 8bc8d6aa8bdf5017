"""Loopback websocket round trip: an intent sent → its patch received, through a real uvicorn."""

from __future__ import annotations

import asyncio
import time

from modalcore_testing import Client, make_test_config, start_server
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Lines, line, summary

ROUNDS = 400


async def _round_trips(url: str, rounds: int) -> list[float]:
    samples: list[float] = []
    async with Client.open(url) as client:
        await client.join()
        toggles = ("open", "close")
        for index in range(rounds):
            start = time.perf_counter()
            await client.intent("host", toggles[index % 2])
            await client.recv_until(lambda f: f["t"] in ("patch", "snapshot"))
            samples.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(0.04)  # stay under the per-session intent rate (30/s)
    return samples


def run(parts: Parts) -> Lines:
    rounds = parts.size(ROUNDS, 2)
    with start_server(make_test_config()) as server:
        samples = asyncio.run(_round_trips(server.ws_url(), rounds))
    s = summary(samples)
    return [
        "Websocket, loopback (real uvicorn, msgpack):",
        line("intent → patch round trip p50", f"{s['p50']:.2f} ms", measured=[s["p50"]]),
        line("intent → patch round trip p99", f"{s['p99']:.2f} ms", measured=[s["p99"]]),
    ]
