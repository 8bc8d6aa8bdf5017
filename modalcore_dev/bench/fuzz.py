"""`make fuzz`: a long fuzz campaign against `python -m modalcore serve` in its own process.

    python -m modalcore_dev.bench.fuzz [--frames 110000] [--per-socket 70] [--concurrency 8]
                                   [--seconds 600] [--seed 1]

Starts the engine on a free loopback port with a temporary config (one project, memory store)
recording every session (`--record-dir`), keeps one honest session open, then runs hostile sockets (`fuzz_client.fuzz_socket`, a random
first frame and `--per-socket` fuzz frames each) until `--frames` frames were sent or `--seconds`
passed, saying how far it got every PROGRESS_S. Prints frames/s, the server's replies by kind, the server's RSS before and after, and
every broken promise; exits 1 if any (a wrong or missing reply, a close code outside PROTOCOL.md,
a traceback or ERROR line in the server's log, the honest session disturbed, a recorded session
that does not replay to the same frames).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from modalcore.engine.record import replay
from modalcore_dev.bench.fuzz_client import HonestSession, SocketReport, fuzz_socket
from modalcore_dev.bench.fuzz_frames import FIRST_MUTATIONS, MUTATIONS, RARE_MUTATIONS
from modalcore.netports import free_port

PROJECT = "fuzz"
ORIGIN = "https://fuzz.example"
HOST = "127.0.0.1"
BAD_LOG = re.compile(r"Traceback|\bERROR\b|\bCRITICAL\b")
DEFAULT_FRAMES = 110_000  # as `make fuzz` (FUZZ_FRAMES) and docs/testers/fuzz.md say
PROGRESS_S = 5.0


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def start_engine(folder: Path, port: int) -> subprocess.Popen[bytes]:
    config = folder / "engine.json"
    config.write_text(json.dumps({
        "secret": "fuzz-secret-not-for-production",
        "projects": {PROJECT: {"name": "Fuzz dApp", "origins": [ORIGIN]}},
        # every fuzz socket comes from 127.0.0.1: lift the per-address cap (64 by default) so
        # the campaign reaches sessions rather than testing that cap 1,800 times
        "max_sessions_per_address": 100_000,
    }))
    log = (folder / "engine.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "modalcore", "serve", "--config", str(config), "--host", HOST,
         "--port", str(port), "--log-level", "warning", "--record-dir", str(folder / "recordings")],
        stdout=log, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(
                    f"the engine did not start: {(folder / 'engine.log').read_text()}") from None
            time.sleep(0.1)


async def campaign(url: str, args: argparse.Namespace, pid: int) -> tuple[SocketReport, list[str], int, int, float, int]:
    honest = HonestSession(url, ORIGIN, PROJECT)
    await honest.start()
    rss_before = rss_kib(pid)
    total = SocketReport()
    sockets = 0
    master = random.Random(args.seed)
    deadline = time.monotonic() + args.seconds
    started = time.perf_counter()
    firsts = FIRST_MUTATIONS + ("join_valid",) * 8  # most sockets join, then send garbage

    async def worker() -> None:
        nonlocal sockets
        while total.sent < args.frames and time.monotonic() < deadline:
            rng = random.Random(master.getrandbits(64))
            kinds = MUTATIONS + RARE_MUTATIONS if rng.random() < 0.1 else MUTATIONS
            sockets += 1
            report = await fuzz_socket(url, ORIGIN, rng, args.per_socket, first=rng.choice(firsts),
                                       kinds=kinds, project=PROJECT)
            total.merge(report)

    shown = asyncio.create_task(progress(lambda: (total.sent, sockets), args.frames, started))
    try:
        await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    finally:
        shown.cancel()
    elapsed = time.perf_counter() - started
    problems = await honest.check()
    await honest.stop()
    return total, problems, rss_before, rss_kib(pid), elapsed, sockets


async def progress(counts: Callable[[], tuple[int, int]], goal: int, started: float,
                   every_s: float = PROGRESS_S) -> None:
    """Say how far the campaign got every `every_s` (a run takes half a minute or more)."""
    while True:
        await asyncio.sleep(every_s)
        sent, sockets = counts()
        elapsed = time.perf_counter() - started
        print(f"fuzz: {sent:,} of {goal:,} frames over {sockets:,} sockets in {elapsed:.0f} s "
              f"({sent / max(elapsed, 1e-9):,.0f} frames/s)", flush=True)


def replay_all(folder: Path) -> tuple[int, list[str]]:
    """Replay every session the engine recorded; the ones whose frames came out different."""
    files = sorted(folder.glob("*.jsonl"))
    diverged: list[str] = []
    for path in files:
        try:
            divergence = replay(path)
        except (ValueError, KeyError) as error:
            diverged.append(f"replay {path.name}: unreadable recording: {error}")
            continue
        if divergence is not None:
            diverged.append(f"replay {path.name}: frame {divergence.index} differs")
    return len(files), diverged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m modalcore_dev.bench.fuzz")
    parser.add_argument("--frames", type=int, default=DEFAULT_FRAMES)
    parser.add_argument("--per-socket", type=int, default=70)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="modalcore-fuzz-") as tmp:
        folder = Path(tmp)
        port = free_port()
        engine = start_engine(folder, port)
        print(f"fuzz: {args.frames:,} frames against the engine (pid {engine.pid}), at most "
              f"{args.seconds:.0f} s; progress every {PROGRESS_S:.0f} s", flush=True)
        try:
            url = f"ws://{HOST}:{port}/ws?project={PROJECT}"
            total, problems, before, after, elapsed, sockets = asyncio.run(campaign(url, args, engine.pid))
        finally:
            engine.terminate()
            try:
                engine.wait(timeout=15)
            except subprocess.TimeoutExpired:
                engine.kill()
        log_lines = (folder / "engine.log").read_text(errors="replace").splitlines()
        kept = Path("artifacts") / "fuzz-engine.log"  # the last campaign's server log, to read
        kept.parent.mkdir(exist_ok=True)
        kept.write_text("\n".join(log_lines) + "\n")
        print(f"fuzz: replaying {len(list((folder / 'recordings').glob('*.jsonl'))):,} recorded sessions",
              flush=True)
        replayed, diverged = replay_all(folder / "recordings")
    bad_log = [line for line in log_lines if BAD_LOG.search(line)]
    for index in [i for i, line in enumerate(log_lines) if BAD_LOG.search(line)][:3]:
        print("server log:", *log_lines[max(0, index - 2): index + 30], sep="\n  ")

    print(f"Fuzz campaign against `python -m modalcore serve` (pid {engine.pid}, its own process):")
    print(f"  frames sent          {total.sent:,} over {sockets:,} sockets in {elapsed:.1f} s "
          f"({total.sent / elapsed:,.0f} frames/s)")
    print("  frames sent by kind  " + ", ".join(f"{k} {v:,}" for k, v in sorted(total.sent_kinds.items())))
    print("  replies by kind      " + ", ".join(f"{k} {v:,}" for k, v in sorted(total.replies.items())))
    print("  socket closes        " + ", ".join(f"{k} {v:,}" for k, v in sorted(total.closes.items())))
    print(f"  server RSS           {before / 1024:.1f} MiB before, {after / 1024:.1f} MiB after "
          f"({(after - before) / 1024:+.1f} MiB)")
    print(f"  server log           {len(log_lines)} lines, {len(bad_log)} with a traceback or ERROR")
    print(f"  honest session       {'unaffected' if not problems else '; '.join(problems)}")
    print(f"  recordings           {replayed:,} sessions replayed, {len(diverged)} diverged")
    violations = total.violations + problems + [f"log: {line}" for line in bad_log[:20]] + diverged
    for violation in violations[:40]:
        print(f"  VIOLATION {violation}")
    print(f"fuzz: {'FAILED' if violations else 'clean'} ({len(violations)} violations)")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
