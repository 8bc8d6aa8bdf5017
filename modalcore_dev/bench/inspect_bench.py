"""Inspector figures: open a 1,000-step recording (replay + index) and jump to a step (the
JSON the page fetches), in process."""

from __future__ import annotations

import json
import random
import tempfile
import time
from io import StringIO
from pathlib import Path

from modalcore.slices.model import initial_model
from modalcore.engine.record import Recorder
from modalcore.engine.session import Session
from modalcore.inspect.recording import inspect_file
from modalcore.slices.options import parse_options
from modalcore.wire.frames import AnnouncedWallet, Env, Intent, Join
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Lines, line, summary

STEPS = 1_000
WALLET = AnnouncedWallet(uuid="uuid-1", name="Dev Wallet", icon="data:image/svg+xml,%3Csvg%2F%3E",
                         rdns="dev.modal.wallet")
OPTIONS = {"networks": ["eip155:31337", "eip155:31338"], "metadata": {"name": "Bench dApp"}}
LOOP = [("host", "open"), ("connect/all-wallets", "press"), ("header/back", "press"),
        ("connect/footer/link", "press"), ("header/back", "press"), ("header/close", "press")]


def recording(steps: int = STEPS) -> str:
    """A recording of `steps` inputs: the modal opened, navigated and closed, over and over."""
    sink = StringIO()
    model = initial_model("demo", "http://localhost:8000", parse_options(OPTIONS), Env(), [WALLET])
    session = Session("bench", model, 0)
    session.recorder = Recorder(sink, name="bench")
    join = Join(t="join", s=1, a=0, project="demo", env=Env(), opts=OPTIONS, wallets=[WALLET])
    session.recorder.join(0, "bench", "http://localhost:8000", join, [])
    session.welcome("token", resumed=False, last=None, now=0)
    for seq in range(1, steps - 1):
        node, act = LOOP[(seq - 1) % len(LOOP)]
        frame = Intent(t="intent", s=seq, a=session.out_seq, iid=f"i{seq}", node=node, act=act,
                       args={})
        session.receive(frame, seq * 1000)  # 1 s apart: never rate limited
    return sink.getvalue()


def run(parts: Parts) -> Lines:
    steps = parts.size(STEPS, 10)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.jsonl"
        path.write_text(recording(steps))
        opens = []
        for _ in range(parts.size(5)):
            start = time.perf_counter_ns()
            inspection = inspect_file(path)
            _ = [step.summary() for step in inspection.steps]
            opens.append((time.perf_counter_ns() - start) / 1e6)
        assert inspection.first_divergence is None and len(inspection.steps) == steps
        rng = random.Random(3)
        jumps = []
        for _ in range(parts.size(300, 3)):
            index = rng.randrange(len(inspection.steps))
            start = time.perf_counter_ns()
            json.dumps(inspection.step_detail(index))
            json.dumps({"lines": inspection.model_diff(max(0, index - 1), index)})
            jumps.append((time.perf_counter_ns() - start) / 1e6)
        size = path.stat().st_size
    s_open, s_jump = summary(opens), summary(jumps)
    return [
        f"Session inspector ({steps:,}-step recording, {size / 1e6:.1f} MB, in process):",
        line("open (replay, trees, timeline) p50", f"{s_open['p50']:.0f} ms", measured=[s_open["p50"], size]),
        line("jump to a step (step JSON + model diff) p50 / p99",
             f"{s_jump['p50']:.2f} ms / {s_jump['p99']:.2f} ms", measured=[s_jump["p50"], s_jump["p99"]]),
    ]
