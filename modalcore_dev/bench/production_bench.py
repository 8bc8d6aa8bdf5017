"""Intent → frames on the production path (issue 17): the engine app as `serve` builds it (hub,
runner, observers, metrics, the store, the encoder), driven with the bytes a socket would read.

Each sample: client-frame bytes parsed as the endpoint parses them, put on the runner's queue,
until the runner has sent every frame of the batch on the (in-memory) socket and saved the
session. Sessions are interleaved, as on a busy worker: each press goes to the next session.

Every press measured is applied, none refused: the engine's clock runs PACE_MS ahead for each
press, so each session's presses come no faster than its intent rate limit (rules/limits.py,
30 a second) lets a visitor's through. Pressed back to back on the wall clock, up to nine in
ten were acked `rate_limited` (one session) and about one in four (ten): a refusal costs a
fraction of a press, and how many there were depended on the machine's speed.
"""

from __future__ import annotations

import asyncio
import gc
import shutil
import tempfile
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from starlette.applications import Starlette

from modalcore.ports.clock import TimerHandle
from modalcore.rules.limits import RATE_PER_S
from modalcore.runtime.clock import RealClock
from modalcore.runtime.runner import SessionRunner
from modalcore.server.app import create_app
from modalcore.server.hub import Hub
from modalcore.server.metrics import MeteredOutlet, Metrics
from modalcore.server.workers import settle_process
from modalcore.slices.options import parse_options
from modalcore.store.base import SessionStore
from modalcore.store.redis import RedisStore
from modalcore.store.redis_server import redis_server
from modalcore.store.sqlite import SqliteStore
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, join_frame, make_test_config
from modalcore.wire.codec import decode, encode
from modalcore.wire.frames import Intent, Join, parse_client_frame
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Lines, Skipped, line, summary

CYCLE = (("host", "open"), ("connect/all-wallets", "press"), ("header/back", "press"),
         ("host", "close"))
PACE_MS = 2 * 1000 // int(RATE_PER_S)  # the engine's time between two presses (of any sessions)


class BenchError(RuntimeError):
    """The bench did not measure what it says (a press was not applied)."""


class _PacedClock:
    """The wall clock, PACE_MS later for every press so far: the engine sees each session's
    presses at most half as often as its rate limit allows. Timers are the event loop's, as
    `RealClock`'s."""

    def __init__(self) -> None:
        self._wall = RealClock()
        self.ahead_ms = 0

    def now_ms(self) -> int:
        return self._wall.now_ms() + self.ahead_ms

    def call_later(self, ms: int, fn: Callable[[], None]) -> TimerHandle:
        return self._wall.call_later(ms, fn)


class _Socket:
    """The sending half of a websocket, in memory: keeps the bytes it was given."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    async def send_bytes(self, data: bytes) -> None:
        self.sent.append(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        return None


class _Visitor:
    def __init__(self, runner: SessionRunner, socket: _Socket, outlet: MeteredOutlet) -> None:
        self.runner = runner
        self.socket = socket
        self.outlet = outlet
        self.seq = 0
        self.step = 0

    def next_intent(self) -> bytes:
        node, act = CYCLE[self.step % len(CYCLE)]
        self.step += 1
        self.seq += 1
        last = decode(self.socket.sent[-1])["s"] if self.socket.sent else 0
        return encode({"t": "intent", "s": self.seq, "a": last, "iid": f"i{self.seq}",
                       "node": node, "act": act, "args": {}})


async def _visitor(hub: Hub, metrics: Metrics, index: int) -> _Visitor:
    join = Join.model_validate({**join_frame(), "wallets": []})
    runner = await hub.create(TEST_ORIGIN, join, parse_options(join.opts), f"10.0.{index // 250}.{index % 250}")
    socket = _Socket()
    outlet = MeteredOutlet(socket, metrics)
    await runner.attach(outlet, hub.token_issuer(runner.id, TEST_PROJECT, TEST_ORIGIN),
                        resumed=False, last=None)
    return _Visitor(runner, socket, outlet)


async def _press(visitor: _Visitor, metrics: Metrics, clock: _PacedClock) -> tuple[float, float]:
    """µs from the bytes read to the batch's frames sent and the session saved: CPU time of
    this process, and wall time (which includes waiting on the store, and other processes
    of this shared machine)."""
    clock.ahead_ms += PACE_MS
    data = visitor.next_intent()
    cpu = time.thread_time_ns()
    start = time.perf_counter_ns()
    frame = parse_client_frame(data)
    assert isinstance(frame, Intent)
    metrics.intent_read(frame)
    visitor.runner.put_frame(frame, visitor.outlet)
    await visitor.runner.inbox.join()
    elapsed = (time.perf_counter_ns() - start) / 1000
    used = (time.thread_time_ns() - cpu) / 1000
    await visitor.runner.settled()  # data arriving (directory) is not part of the press
    return used, elapsed


async def measure(store: SessionStore, sessions: int = 50, rounds: int = 2000,
                  commands: Callable[[], int] | None = None) -> dict[str, float]:
    """p50/p99 µs per intent over `rounds` presses spread over `sessions` sessions, and the
    store calls (and the store's own count, given `commands`: Redis requests, SQLite commits) per intent,
    and the bytes handed to the store to write per intent (sessions and shared blobs)."""
    config = make_test_config(max_sessions_per_address=10_000)
    clock = _PacedClock()
    app = create_app(config, store=store, clock=clock)
    settle_process()  # as `serve` does once the app is built: full collections then skip the startup objects
    try:
        return await _measure(app, store, sessions, rounds, clock, commands)
    finally:
        gc.unfreeze()  # a caller's process (the smoke test's pytest worker) goes on collecting as before


async def _measure(app: Starlette, store: SessionStore, sessions: int, rounds: int, clock: _PacedClock,
                   commands: Callable[[], int] | None) -> dict[str, float]:
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(app.router.lifespan_context(app))
        hub: Hub = app.state.hub
        metrics: Metrics = app.state.metrics
        visitors = [await _visitor(hub, metrics, i) for i in range(sessions)]
        for visitor in visitors:  # warm every view once
            for _ in CYCLE:
                await _press(visitor, metrics, clock)
        calls_before = sum(metrics.store_ops.values())
        commands_before = commands() if commands else 0
        bytes_before = store.bytes_written
        applied_before = metrics.intent_seconds.count
        timings = [await _press(visitors[i % sessions], metrics, clock) for i in range(rounds)]
        applied = metrics.intent_seconds.count - applied_before
        if applied != rounds:
            raise BenchError(f"{rounds - applied} of {rounds} presses were not applied (refused or lost)")
        calls = (sum(metrics.store_ops.values()) - calls_before) / rounds
        sent = (commands() - commands_before) / rounds if commands else float("nan")
        saved = (store.bytes_written - bytes_before) / rounds
    result = summary([cpu for cpu, _ in timings])
    wall = summary([wall for _, wall in timings])
    result["wall_p50"], result["wall_p99"] = wall["p50"], wall["p99"]
    result["store_calls"] = calls
    result["commands"] = sent
    result["saved_bytes"] = saved
    return result


def run(parts: Parts) -> Lines:
    sessions, rounds = parts.size(50, 2), parts.size(2000, 8)
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(Path(tmp) / "bench.db")
        figures = asyncio.run(measure(store, sessions, rounds, commands=lambda: store.writer.commits))
    out: Lines = [f"Engine, production path (hub, runner, observers, store, encoder; {sessions} interleaved sessions):"]
    out.append(line("SQLite: intent → frames sent and saved, CPU p50", f"{figures['p50']:.0f} µs", "≤ 150 µs",
                    [figures["p50"]]))
    out.append(line("SQLite: … CPU p99", f"{figures['p99']:.0f} µs", "≤ 1 ms", [figures["p99"]]))
    out.append(line("SQLite: … wall p50 / p99", f"{figures['wall_p50']:.0f} / {figures['wall_p99']:.0f} µs",
                    measured=[figures["wall_p50"], figures["wall_p99"]]))
    out.append(line("SQLite: store calls / commits per intent (saves and events written behind)",
                    f"{figures['store_calls']:.2f} / {figures['commands']:.3f}", measured=[figures["store_calls"]]))
    out.append(line("SQLite: bytes saved per intent (session and shared blobs)", f"{figures['saved_bytes']:,.0f} B",
                    measured=[figures["saved_bytes"]]))
    if shutil.which("redis-server") is None:
        out.append(Skipped("Redis", "redis-server is not installed (`make redis`)"))
        return out
    with redis_server() as url:
        redis = RedisStore.from_url(url, prefix="bench:")
        figures = asyncio.run(measure(redis, sessions, rounds, commands=lambda: redis.commands))
    out.append(line("Redis: intent → frames sent and saved, CPU p50 / p99",
                    f"{figures['p50']:.0f} / {figures['p99']:.0f} µs", measured=[figures["p50"], figures["p99"]]))
    out.append(line("Redis: … wall p50 / p99", f"{figures['wall_p50']:.0f} / {figures['wall_p99']:.0f} µs",
                    measured=[figures["wall_p50"], figures["wall_p99"]]))
    out.append(line("Redis: requests per intent", f"{figures['commands']:.2f}", "≤ 2", [figures["commands"]]))
    out.append(line("Redis: bytes saved per intent (session and shared blobs)", f"{figures['saved_bytes']:,.0f} B",
                    measured=[figures["saved_bytes"]]))
    return out


def _main(argv: Any = None) -> int:
    for text in run(Parts()):
        print(text, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
