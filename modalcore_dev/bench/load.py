"""Load from outside: `python -m modalcore_dev.bench.load` (issue 17).

Starts `python -m modalcore serve` subprocesses (one per worker) on free loopback ports with a
temporary config and SQLite store, then drives them over real websockets from this process:

- idle: N sessions join, acknowledge their welcome as the renderer does, and stay; the servers' RSS
  growth (VmRSS of /proc/PID/status) per session once they have been idle past two
  `idle_compact_s` periods (5 s here, 30 s by default: idle sessions drop their trees), and
  just after joining;
- active: N sessions send R intents/s each for D seconds, open loop (an intent is sent on its
  schedule whether or not the previous one was answered), and measure intent sent → the patch
  that follows its `intent_ack ok`; anything else (a refused ack, an `error` frame, a timeout, a
  socket that fails) counts as an error, and so does a session store call that failed in a
  worker (its /metrics).

With `--workers 2` the sessions are spread round-robin over two worker processes: with
`--store sqlite` (the default) each has its own SQLite file (independent workers); with
`--store redis` they share one `redis-server` the tool starts on a free loopback port. The
active row gives the session store calls per intent (the workers' /metrics; with Redis each is one
request) and, with Redis, the commands Redis executed per intent (its own
`total_commands_processed`, so the save script's body counts).
Bounded in count and time, loopback only; the client shares the machine with the server, so
figures are pessimistic.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from redis import Redis
from websockets.asyncio.client import ClientConnection, connect

from modalcore.store.redis_server import redis_server
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, join_frame
from modalcore.wire.codec import decode, encode
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Figure, Lines, percentile
from modalcore.netports import free_port

HOST = "127.0.0.1"
START_TIMEOUT_S = 120.0  # a loaded shared machine starts Python slowly
CONNECT_CONCURRENCY = 50
REPLY_TIMEOUT_S = 10.0
MAX_SESSIONS = 20_000
MAX_SECONDS = 600.0
# The workers' `idle_compact_s` here (the engine's default is 30 s): an idle session drops its
# tree after one to two of these periods; the idle row measures before and after that.
IDLE_COMPACT_S = 5.0
OPERATOR_TOKEN = "load-tool-operator-token-32-bytes-long"  # the workers' /metrics (a loopback tool: not a secret)


@dataclass
class Worker:
    process: subprocess.Popen[bytes]
    port: int
    log: Path | None = None

    @property
    def ws_url(self) -> str:
        return f"ws://{HOST}:{self.port}/ws?project={TEST_PROJECT}"

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])  # utime + stime
        return ticks / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def start_workers(count: int, sessions: int, redis_url: str | None = None, database_url: str | None = None,
                  extra: dict[str, Any] | None = None, files: dict[str, str] | None = None
                  ) -> Iterator[list[Worker]]:
    """`count` engine processes, each with its own temp config and SQLite store (or all on the
    Redis at `redis_url`, under one key prefix); with `database_url`, every durable record in
    that PostgreSQL (each process then is a host of its own: its own folder, nothing shared but
    the config's content, Redis and the database); `extra`: more config tables, `files`: files
    each process finds in its folder (a master key); stopped after."""
    with tempfile.TemporaryDirectory(prefix="modalcore-load-") as tmp:
        workers: list[Worker] = []
        try:
            for index in range(count):
                folder = Path(tmp) / f"w{index}"
                folder.mkdir()
                config = {
                    "secret": TEST_SECRET,
                    "projects": {TEST_PROJECT: {"name": "Load", "origins": [TEST_ORIGIN]}},
                    "store": ({"kind": "redis", "url": redis_url, "prefix": "load:"}
                              if redis_url else {"kind": "sqlite", "path": "sessions.db"}),
                    "max_sessions_per_address": max(1, sessions),
                    "analytics": {"mode": "off"},
                    "siwx": {"db": "siwx.db", "key_file": "engine.key"},
                    "idle_compact_s": IDLE_COMPACT_S,
                    "operator_token": OPERATOR_TOKEN,  # /metrics is the operator's
                }
                if database_url is not None:
                    config["database"] = {"url": database_url, "pool_min": 1, "pool_max": 4}
                config.update(extra or {})
                for name, text in (files or {}).items():
                    (folder / name).write_text(text)
                (folder / "config.json").write_text(json.dumps(config))
                port = free_port()
                with (folder / "serve.log").open("wb") as log:  # what it says when it cannot start
                    process = subprocess.Popen(
                        [sys.executable, "-m", "modalcore", "serve", "--config",
                         str(folder / "config.json"), "--host", HOST, "--port", str(port),
                         "--log-level", "warning"],
                        cwd=folder, stdout=subprocess.DEVNULL, stderr=log,
                    )
                workers.append(Worker(process, port, folder / "serve.log"))
            for worker in workers:
                _wait_healthy(worker)
            yield workers
        finally:
            for worker in workers:
                worker.process.terminate()
            for worker in workers:
                try:
                    worker.process.wait(10)
                except subprocess.TimeoutExpired:
                    worker.process.kill()
                    worker.process.wait()


def _wait_healthy(worker: Worker) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if worker.process.poll() is not None:
            said = worker.log.read_text(errors="replace").strip().splitlines()[-1:] if worker.log else []
            raise RuntimeError(f"the engine exited with {worker.process.returncode}: {' '.join(said)}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://{HOST}:{worker.port}/healthz", timeout=1).status_code == 200:
                return
        time.sleep(0.1)
    raise RuntimeError("the engine did not answer /healthz in time")


# ----- one session
@dataclass
class Session:
    ws: ClientConnection
    seq: int = 1  # the join was 1
    last: int = 0
    sent: dict[str, float] = field(default_factory=dict)  # iid -> when sent
    acked: list[str] = field(default_factory=list)  # acked ok, waiting for their patch
    latencies: list[float] = field(default_factory=list)
    errors: int = 0


async def _open(url: str, gate: asyncio.Semaphore) -> Session:
    async with gate:
        ws = await connect(url, additional_headers={"Origin": TEST_ORIGIN}, max_size=2**22,
                           open_timeout=REPLY_TIMEOUT_S, close_timeout=2)
        session = Session(ws)
        await ws.send(encode(join_frame(s=1, a=0)))
        while True:
            frame = decode(await asyncio.wait_for(ws.recv(), REPLY_TIMEOUT_S))  # type: ignore[arg-type]
            session.last = max(session.last, int(frame.get("s", 0)))
            if frame.get("t") == "joined":
                return session
            if frame.get("t") in ("error", "goodbye"):
                await ws.close()
                raise RuntimeError(f"join refused: {frame}")


async def _open_all(workers: Sequence[Worker], count: int) -> tuple[list[Session], int]:
    gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
    results = await asyncio.gather(
        *(_open(workers[i % len(workers)].ws_url, gate) for i in range(count)),
        return_exceptions=True,
    )
    sessions = [r for r in results if isinstance(r, Session)]
    return sessions, len(results) - len(sessions)


async def _close_all(sessions: Sequence[Session]) -> None:
    await asyncio.gather(*(s.ws.close() for s in sessions), return_exceptions=True)


async def _read(session: Session) -> None:
    async for data in session.ws:
        frame = decode(data)  # type: ignore[arg-type]
        session.last = max(session.last, int(frame.get("s", 0)))
        kind = frame.get("t")
        if kind == "intent_ack":
            iid = str(frame.get("iid"))
            if frame.get("status") == "ok":
                session.acked.append(iid)
            elif session.sent.pop(iid, None) is not None:
                session.errors += 1
        elif kind in ("patch", "snapshot"):
            now = time.perf_counter()
            for iid in session.acked:
                sent = session.sent.pop(iid, None)
                if sent is not None:
                    session.latencies.append((now - sent) * 1000)
            session.acked.clear()
        elif kind in ("error", "goodbye"):
            session.errors += 1


async def _drive(session: Session, rate: float, seconds: float, offset: float) -> None:
    reader = asyncio.create_task(_read(session))
    start = time.perf_counter() + offset
    sends = int(rate * seconds)
    try:
        for index in range(sends):
            delay = start + index / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            session.seq += 1
            iid = f"i{session.seq}"
            act = "open" if index % 2 == 0 else "close"
            frame = {"t": "intent", "s": session.seq, "a": session.last, "iid": iid,
                     "node": "host", "act": act, "args": {}}
            session.sent[iid] = time.perf_counter()
            await session.ws.send(encode(frame))
        deadline = time.perf_counter() + REPLY_TIMEOUT_S
        while session.sent and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
    except Exception:
        session.errors += 1
    finally:
        session.errors += len(session.sent)  # never answered
        session.sent.clear()
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await reader


# ----- the two measurements
@dataclass
class Row:
    workers: int
    scenario: str
    sessions: int
    figures: dict[str, str]
    measured: tuple[float, ...] = ()  # what the smoke test checks is there and positive


async def _settle_like_a_page(session: Session) -> None:
    """What the renderer does once the welcome is in: it reads the frames (theme, snapshot,
    host events) and acknowledges them with a bare `ack`, so the server's resume ring empties."""
    with contextlib.suppress(TimeoutError):
        while True:
            frame = decode(await asyncio.wait_for(session.ws.recv(), 0.3))  # type: ignore[arg-type]
            session.last = max(session.last, int(frame.get("s", 0)))
    await session.ws.send(encode({"t": "ack", "s": 0, "a": session.last}))


async def idle(workers: Sequence[Worker], count: int) -> Row:
    before = sum(w.rss_kib() for w in workers)
    sessions, failed = await _open_all(workers, count)
    gate = asyncio.Semaphore(CONNECT_CONCURRENCY * 4)

    async def settle(session: Session) -> None:
        async with gate:
            await _settle_like_a_page(session)

    await asyncio.gather(*(settle(s) for s in sessions), return_exceptions=True)
    await asyncio.sleep(1.0)  # let the servers settle (joins processed, buffers freed)
    fresh = sum(w.rss_kib() for w in workers)
    # idle past two compaction periods: the sessions dropped their trees (still open, joined)
    await asyncio.sleep(2 * IDLE_COMPACT_S + 1.0)
    after = sum(w.rss_kib() for w in workers)
    await _close_all(sessions)
    opened = max(1, len(sessions))
    return Row(len(workers), "idle", count, {
        "RSS per session": f"{(after - before) / opened:.1f} KiB",
        "just joined": f"{(fresh - before) / opened:.1f} KiB",
        "RSS total": f"{after / 1024:.0f} MiB",
        "errors": str(failed),
    }, (after / 1024, len(sessions)))


def _redis_commands(redis_url: str | None) -> int:
    if redis_url is None:
        return 0
    client = Redis.from_url(redis_url)
    try:
        return int(client.info("stats")["total_commands_processed"])
    finally:
        client.close()


# what one /metrics answer itself sends to PostgreSQL (the sponsoring refusals' read), counted in
# the workers' next answer: the difference of two readings holds it once per worker
SCRAPE_ROUND_TRIPS = 1


def database_statements(workers: Sequence[Worker]) -> int:
    """The statements the workers sent to PostgreSQL so far (their /metrics)."""
    return _store_calls(workers)[2]


def _store_calls(workers: Sequence[Worker]) -> tuple[int, int, int]:
    """Session store calls the workers made, how many failed, and the statements they sent to
    PostgreSQL (their /metrics); with Redis, each store call is one request."""
    calls = failed = statements = 0
    for worker in workers:
        # a worker may still be draining its backlog: wait for its answer
        text = httpx.get(f"http://{HOST}:{worker.port}/metrics", timeout=60,
                         headers={"Authorization": f"Bearer {OPERATOR_TOKEN}"}).text
        for line in text.splitlines():
            value = int(float(line.rsplit(" ", 1)[-1])) if not line.startswith("#") else 0
            if line.startswith("modalcore_store_operations_total{"):
                calls += value
            elif line.startswith("modalcore_store_errors_total "):
                failed += value
            elif line.startswith("modalcore_database_statements_total "):
                statements += value
    return calls, failed, statements


async def active(workers: Sequence[Worker], count: int, rate: float, seconds: float,
                 redis_url: str | None = None, database: bool = False) -> Row:
    sessions, failed = await _open_all(workers, count)
    await asyncio.sleep(0.5)  # joins settled
    commands_before = _redis_commands(redis_url)
    calls_before = _store_calls(workers)
    cpu_before = sum(w.cpu_s() for w in workers)
    began = time.perf_counter()
    period = 1 / rate
    await asyncio.gather(*(
        _drive(s, rate, seconds, period * i / max(1, len(sessions)))
        for i, s in enumerate(sessions)
    ))
    elapsed = time.perf_counter() - began
    cpu = sum(w.cpu_s() for w in workers) - cpu_before
    # the INFO asking for it is one more command
    commands = _redis_commands(redis_url) - commands_before - 1
    calls_after = _store_calls(workers)
    calls = calls_after[0] - calls_before[0]
    store_errors = calls_after[1] - calls_before[1]
    await _close_all(sessions)
    samples = [ms for s in sessions for ms in s.latencies]
    errors = failed + sum(s.errors for s in sessions)
    figures = {
        "p50": f"{percentile(samples, 50):.1f} ms",
        "p99": f"{percentile(samples, 99):.1f} ms",
        "intents/s": f"{len(samples) / elapsed:.0f}",
        "server CPU": f"{100 * cpu / elapsed:.0f} %",
        "CPU/intent": f"{1000 * cpu / max(1, len(samples)):.2f} ms",
    }
    answered = max(1, len(samples))
    figures["store calls/intent"] = f"{calls / answered:.2f}"
    if redis_url is not None:  # what Redis executed, script bodies included
        figures["Redis commands/intent"] = f"{commands / answered:.2f}"
    if database:  # PostgreSQL round trips (the workers' statements)
        figures["database round trips/intent"] = f"{(calls_after[2] - calls_before[2]) / answered:.2f}"
    figures["errors"] = str(errors + store_errors)  # the client's, and failed store calls
    return Row(len(workers), f"active {rate:g}/s × {seconds:g} s", count, figures,
               (percentile(samples, 50), len(samples) / elapsed, cpu))


# ----- the active run from several client processes (one Python process cannot drive much more
# than ~1,000 intents/s over websockets: past that the client, not the engine, is measured)
def _client_process(urls: list[str], offsets: list[float], rate: float, seconds: float,
                    barrier: Any, results: Any) -> None:
    async def main() -> tuple[list[float], int, int]:
        gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
        opened = await asyncio.gather(*(_open(url, gate) for url in urls), return_exceptions=True)
        sessions = [(s, offsets[i]) for i, s in enumerate(opened) if isinstance(s, Session)]
        await asyncio.sleep(0.5)  # joins settled
        await asyncio.get_running_loop().run_in_executor(None, barrier.wait, 600)
        await asyncio.gather(*(_drive(s, rate, seconds, offset) for s, offset in sessions))
        await _close_all([s for s, _ in sessions])
        latencies = [ms for s, _ in sessions for ms in s.latencies]
        return latencies, sum(s.errors for s, _ in sessions), len(urls) - len(sessions)

    results.put(asyncio.run(main()))


def active_from_processes(workers: Sequence[Worker], count: int, rate: float, seconds: float,
                          redis_url: str | None, clients: int) -> Row:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(clients + 1)
    results = context.Queue()
    period = 1 / rate
    processes = []
    for index in range(clients):
        mine = range(index, count, clients)
        processes.append(context.Process(target=_client_process, args=(
            [workers[j % len(workers)].ws_url for j in mine],
            [period * j / max(1, count) for j in mine], rate, seconds, barrier, results)))
    for process in processes:
        process.start()
    try:
        barrier.wait(600)  # every client has its sessions open
        commands_before = _redis_commands(redis_url)
        calls_before = _store_calls(workers)
        cpu_before = sum(w.cpu_s() for w in workers)
        began = time.perf_counter()
        gathered = [results.get(timeout=seconds + 600) for _ in processes]
        elapsed = time.perf_counter() - began
        cpu = sum(w.cpu_s() for w in workers) - cpu_before
        commands = _redis_commands(redis_url) - commands_before - 1
        calls_after = _store_calls(workers)
    finally:
        for process in processes:
            process.join(30)
            if process.is_alive():
                process.kill()
    samples = [ms for latencies, _, _ in gathered for ms in latencies]
    errors = sum(e + f for _, e, f in gathered) + calls_after[1] - calls_before[1]
    answered = max(1, len(samples))
    figures = {
        "p50": f"{percentile(samples, 50):.1f} ms",
        "p99": f"{percentile(samples, 99):.1f} ms",
        "intents/s": f"{len(samples) / elapsed:.0f}",
        "server CPU": f"{100 * cpu / elapsed:.0f} %",
        "CPU/intent": f"{1000 * cpu / answered:.2f} ms",
        "store calls/intent": f"{(calls_after[0] - calls_before[0]) / answered:.2f}",
    }
    if redis_url is not None:
        figures["Redis commands/intent"] = f"{commands / answered:.2f}"
    figures["errors"] = str(errors)
    return Row(len(workers), f"active {rate:g}/s × {seconds:g} s, {clients} clients", count, figures,
               (percentile(samples, 50), len(samples) / elapsed, cpu))


def table(rows: Sequence[Row], store: str) -> Lines:
    lines: Lines = [f"Load over real websockets (loopback, {store} store, client on the same machine):",
                    f"  {'workers':>7}  {'scenario':<22} {'sessions':>8}  figures"]
    for row in rows:
        figures = ", ".join(f"{k} {v}" for k, v in row.figures.items())
        lines.append(Figure(f"{row.workers:>7}  {row.scenario:<22} {row.sessions:>8}", figures, measured=row.measured))
    return lines


def run(idle_sessions: int = 200, active_sessions: int = 100, rate: float = 1.0,
        seconds: float = 10.0, worker_counts: Sequence[int] = (1, 2),
        store: str = "sqlite", clients: int = 1) -> Lines:
    if not (0 <= idle_sessions <= MAX_SESSIONS and 0 <= active_sessions <= MAX_SESSIONS):
        raise ValueError(f"sessions are bounded to {MAX_SESSIONS}")
    if not (0 < rate <= 30 and 0 < seconds <= MAX_SECONDS):
        raise ValueError(f"rate is in (0, 30] per second, seconds in (0, {MAX_SECONDS:g}]")
    if store not in ("sqlite", "redis"):
        raise ValueError("the store is sqlite or redis")
    if not 1 <= clients <= 8:
        raise ValueError("clients is 1 to 8 processes")
    rows: list[Row] = []
    with contextlib.ExitStack() as stack:
        redis_url = stack.enter_context(redis_server()) if store == "redis" else None
        limit = max(idle_sessions, active_sessions)
        for count in worker_counts:
            if idle_sessions:
                with start_workers(count, limit, redis_url) as workers:
                    rows.append(asyncio.run(idle(workers, idle_sessions)))
            if active_sessions:
                with start_workers(count, limit, redis_url) as workers:
                    if clients > 1:
                        rows.append(active_from_processes(
                            workers, active_sessions, rate, seconds, redis_url, clients))
                    else:
                        rows.append(asyncio.run(
                            active(workers, active_sessions, rate, seconds, redis_url)))
    return table(rows, "Redis" if store == "redis" else "SQLite")


def section(parts: Parts) -> Lines:
    """`make bench`'s run of the tool (LOAD_IDLE, LOAD_ACTIVE, LOAD_RATE, LOAD_SECONDS)."""
    sizes = parts.load
    return run(sizes.idle, sizes.active, sizes.rate, sizes.seconds, sizes.workers)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m modalcore_dev.bench.load")
    parser.add_argument("--idle", type=int, default=200, help="idle sessions (0: skip)")
    parser.add_argument("--active", type=int, default=100, help="active sessions (0: skip)")
    parser.add_argument("--rate", type=float, default=1.0, help="intents per second per session")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long the active run lasts")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2],
                        help="worker counts to measure (default: 1 2)")
    parser.add_argument("--store", choices=("sqlite", "redis"), default="sqlite",
                        help="sqlite: one file per worker; redis: one redis-server they share")
    parser.add_argument("--clients", type=int, default=1,
                        help="client processes driving the active sessions (default 1)")
    args = parser.parse_args(argv)
    try:
        lines = run(args.idle, args.active, args.rate, args.seconds, args.workers, args.store,
                    args.clients)
    except ValueError as error:
        print(f"load: {error}", file=sys.stderr)
        return 2
    for text in lines:
        print(text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
