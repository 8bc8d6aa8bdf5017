"""In-process figures: intent → patch, snapshot and patch bytes, memory per idle session."""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from typing import Any

import asyncio

from modalcore.directory.backend.source import run_query
from modalcore.core.cmds import Call, CallSettled
from modalcore.slices.model import initial_model
from modalcore.engine.session import Session
from modalcore.slices.options import parse_options
from modalcore.wire.frames import AnnouncedWallet, Env, Intent
from modalcore.wire.serverframes import Patch, ServerFrame, encoded
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Lines, line, summary

WALLETS = [
    AnnouncedWallet(uuid=f"uuid-{i}", name=name, icon="data:image/svg+xml;base64,PHN2Zy8+", rdns=f"io.{name.lower()}")
    for i, name in enumerate(("Dev Wallet", "MetaMask", "Rabby"))
]
OPTIONS = {"networks": ["eip155:31337", "eip155:31338"], "metadata": {"name": "Bench dApp"}}


def new_session(index: int = 0) -> Session:
    model = initial_model("demo", "http://localhost:3000", parse_options(OPTIONS), Env(), WALLETS)
    session = Session(f"s{index}", model, 0)
    session.welcome("token", resumed=False, last=None)
    return session


class Clicker:
    """Presses through a session; directory calls are answered at once from the local
    directory, as the runtime would, so the figures are those of a session with its data."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.seq = 0
        self.answered: dict[str, Any] = {}

    def intent(self, node: str, act: str = "press", args: dict[str, Any] | None = None) -> list[ServerFrame]:
        self.seq += 1
        frame = Intent(t="intent", s=self.seq, a=self.session.out_seq, iid=f"i{self.seq}", node=node,
                       act=act, args=args or {})
        out = self.session.receive(frame, self.seq * 100)
        self.pending = out.cmds
        return out.frames

    def settle(self, out_cmds: list[Any]) -> None:
        for cmd in out_cmds:
            if isinstance(cmd, Call) and cmd.service.name == "directory":
                key = repr(cmd.args)
                if key not in self.answered:
                    self.answered[key] = asyncio.run(run_query(None, None, "demo", cmd.args_data))
                self.session.deliver(CallSettled(cmd.to, True, self.answered[key]), self.seq * 100)


def intent_to_patch(rounds: int = 2000) -> tuple[list[float], list[int]]:
    """µs per intent (validate, update, view, diff, encode) on ordinary interactions; patch sizes."""
    session = new_session()
    clicker = Clicker(session)
    cycle = [("host", "open"), ("connect/all-wallets", "press"), ("header/back", "press"), ("host", "close")]
    timings: list[float] = []
    patch_bytes: list[int] = []
    for index in range(rounds):
        node, act = cycle[index % len(cycle)]
        start = time.perf_counter_ns()
        frames = clicker.intent(node, act)
        sent = [encoded(frame) for frame in frames]
        timings.append((time.perf_counter_ns() - start) / 1000)
        clicker.settle(clicker.pending)  # data arriving is not part of the press
        patch_bytes += [len(data) for frame, data in zip(frames, sent, strict=True) if isinstance(frame, Patch)]
    return timings, patch_bytes


def connect_snapshot_bytes() -> int:
    session = new_session()
    return len(encoded(session.snapshot()))


def memory_per_idle_session(count: int = 2000) -> float:
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    sessions = [new_session(i) for i in range(count)]
    for session in sessions:
        session._ack(session.out_seq)  # an idle client acknowledged everything
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    total = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    del sessions
    return total / count


def run(parts: Parts) -> Lines:
    timings, patch_bytes = intent_to_patch(parts.size(2000, 8))
    s = summary(timings)
    idle = parts.size(2000, 10)
    out: Lines = ["Engine, in process (a breakdown: the session alone, without runner, observers or store):"]
    out.append(line("intent → patch (update+view+diff+encode) p50", f"{s['p50']:.0f} µs", "≤ 100 µs", [s["p50"]]))
    out.append(line("intent → patch p99", f"{s['p99']:.0f} µs", measured=[s["p99"]]))
    snapshot = connect_snapshot_bytes()
    out.append(line("snapshot bytes, Connect view", f"{snapshot} B", "≤ 4 KB", [snapshot]))
    median_patch = statistics.median(patch_bytes) if patch_bytes else 0
    out.append(line("median patch bytes, ordinary interactions", f"{median_patch:.0f} B", "≤ 200 B", [median_patch]))
    memory = memory_per_idle_session(idle)
    out.append(line(f"memory per idle session ({idle:,} sessions)", f"{memory / 1024:.1f} KB", "≤ 30 KB", [memory]))
    return out
