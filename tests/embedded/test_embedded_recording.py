"""A recorded session replays with what the engine's embedded wallet offered at join (email,
socials): the join event carries it (engine/record.py), since it comes from the operator's
config, not from the page."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

from modalcore import samples
from modalcore.engine.record import Recorder, replay
from modalcore.enginetest import Harness
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.wire.frames import Join


def _recorded(tmp_path: Path, *, carry_offer: bool) -> Path:
    frame = Join.model_validate({"t": "join", "s": 1, "a": 0, **samples.join()})
    model = initial_model(frame.project, "http://localhost:8000", parse_options(frame.opts), frame.env,
                          frame.wallets)
    model = replace(model, embedded=replace(model.embedded, email_offered=True, socials=("google",)))
    sink = io.StringIO()
    h = Harness(model, join=frame, recorder=Recorder(sink, name="embedded offer"))
    h.host("open")
    assert h.find("connect/email") is not None
    lines = sink.getvalue().splitlines()
    for index, line in enumerate(lines):  # the harness records the offer as the hub does: drop it, or keep it
        event = json.loads(line)
        if event.get("k") == "join":
            assert event["embedded"] == {"email": True, "socials": ["google"]}
            if not carry_offer:
                del event["embedded"]
            lines[index] = json.dumps(event, separators=(",", ":"))
    path = tmp_path / "recording.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_offer_in_the_join_event_makes_the_replay_exact(tmp_path: Path) -> None:
    assert replay(_recorded(tmp_path, carry_offer=True)) is None


def test_without_the_offer_the_replay_diverges(tmp_path: Path) -> None:
    assert replay(_recorded(tmp_path, carry_offer=False)) is not None


def test_the_recorder_writes_the_offer_the_engine_gives() -> None:
    frame = Join.model_validate({"t": "join", "s": 1, "a": 0, **samples.join()})
    sink = io.StringIO()
    Recorder(sink).join(0, "s1", "http://localhost:8000", frame, (), (True, ("google",)))
    events = [json.loads(line) for line in sink.getvalue().splitlines()]
    [join] = [e for e in events if e.get("k") == "join"]
    assert join["embedded"] == {"email": True, "socials": ["google"]}
