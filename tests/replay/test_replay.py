"""Recorded sessions replay to the same frames; a tampered recording fails at the right frame."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from modalcore.__main__ import main
from modalcore.engine.record import read_events, replay

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = ROOT / "fixtures" / "sessions"
RECORDINGS = sorted(SESSIONS.glob("*.jsonl"))
SCENARIOS = {"navigate", "connect_rejected_retry", "snack_timers", "safety", "reload_resync"}


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_sessions", SESSIONS / "make_sessions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every scenario recorded anew from today's engine (the tampering tests work on these, so
    they test replay itself even while a committed recording waits to be regenerated)."""
    folder = tmp_path_factory.mktemp("sessions")
    generator = _generator()
    for name in generator.SCENARIOS:
        generator.record(name, folder / f"{name}.jsonl")
    return folder


def _events(path: Path) -> list[dict[str, Any]]:
    return list(read_events(path))


def _write(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    return path


def _out_positions(events: list[dict[str, Any]]) -> list[int]:
    """Positions in `events` of the outbound frames, in order (frame index → event position)."""
    return [position for position, event in enumerate(events) if event["k"] == "out"]


def test_every_scenario_is_recorded() -> None:
    assert {path.stem for path in RECORDINGS} >= SCENARIOS


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.stem for p in RECORDINGS])
def test_recorded_session_replays_to_the_same_frames(path: Path) -> None:
    divergence = replay(path)
    assert divergence is None, (
        f"{path.name} diverges at frame {divergence.index}: the engine now draws something else; "
        "if that is intended, re-run fixtures/sessions/make_sessions.py"
    )


def test_a_fresh_recording_replays(fresh: Path) -> None:
    for path in sorted(fresh.glob("*.jsonl")):
        assert replay(path) is None, path.name


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.stem for p in RECORDINGS])
def test_recording_starts_with_a_header_and_a_join_and_feeds_inputs(path: Path) -> None:
    events = _events(path)
    assert [events[0]["k"], events[1]["k"]] == ["header", "join"]
    assert {event["k"] for event in events} >= {"join", "welcome", "in", "out"}


@pytest.mark.parametrize("which", ["first", "middle", "last"])
def test_tampered_outbound_frame_fails_with_its_index(fresh: Path, tmp_path: Path, which: str) -> None:
    events = _events(fresh / "snack_timers.jsonl")
    positions = _out_positions(events)
    index = {"first": 0, "middle": len(positions) // 2, "last": len(positions) - 1}[which]
    frame = events[positions[index]]["frame"]
    frame["a"] = frame["a"] + 1000  # one field of one frame
    divergence = replay(_write(tmp_path / "tampered.jsonl", events))
    assert divergence is not None
    assert divergence.index == index
    assert divergence.expected == frame
    assert divergence.actual == {**frame, "a": frame["a"] - 1000}


def test_tampered_snackbar_message_fails_at_that_patch(fresh: Path, tmp_path: Path) -> None:
    events = _events(fresh / "snack_timers.jsonl")
    positions = _out_positions(events)
    index = next(i for i, p in enumerate(positions)
                 if "Address copied" in json.dumps(events[p]["frame"]))
    events[positions[index]] = json.loads(
        json.dumps(events[positions[index]]).replace("Address copied", "Address pasted"))
    divergence = replay(_write(tmp_path / "tampered.jsonl", events))
    assert divergence is not None and divergence.index == index


def test_dropped_outbound_frame_fails_at_its_index(fresh: Path, tmp_path: Path) -> None:
    events = _events(fresh / "navigate.jsonl")
    positions = _out_positions(events)
    index = len(positions) // 3
    del events[positions[index]]
    divergence = replay(_write(tmp_path / "dropped.jsonl", events))
    assert divergence is not None and divergence.index == index


def test_extra_expected_frame_fails_after_the_last_real_one(fresh: Path, tmp_path: Path) -> None:
    events = _events(fresh / "navigate.jsonl")
    count = len(_out_positions(events))
    events.append({"k": "out", "frame": {"t": "ack", "s": 0, "a": 0}})
    divergence = replay(_write(tmp_path / "extra.jsonl", events))
    assert divergence is not None
    assert (divergence.index, divergence.actual) == (count, None)


def test_tampered_inbound_frame_changes_the_replayed_frames(fresh: Path, tmp_path: Path) -> None:
    events = _events(fresh / "navigate.jsonl")
    position = next(i for i, e in enumerate(events) if e["k"] == "in" and e["frame"].get("node") == "header/back")
    events[position]["frame"]["node"] = "no/such/node"
    first_out_after = sum(1 for e in events[:position] if e["k"] == "out")
    divergence = replay(_write(tmp_path / "tampered-in.jsonl", events))
    assert divergence is not None and divergence.index == first_out_after
    assert divergence.actual is not None
    assert divergence.actual["t"] == "intent_ack" and divergence.actual["status"] == "invalid"


def test_recording_without_a_join_is_refused(fresh: Path, tmp_path: Path) -> None:
    events = [e for e in _events(fresh / "navigate.jsonl") if e["k"] != "join"]
    with pytest.raises(ValueError):
        replay(_write(tmp_path / "nojoin.jsonl", events))


# ----- the command line: python -m modalcore replay FILE


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "modalcore", "replay", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_cli_replay_of_a_good_recording_exits_0(fresh: Path) -> None:
    result = _cli(str(fresh / "connect_rejected_retry.jsonl"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok")


def test_cli_replay_of_a_tampered_recording_exits_1_naming_the_frame(fresh: Path, tmp_path: Path) -> None:
    events = _events(fresh / "safety.jsonl")
    positions = _out_positions(events)
    events[positions[7]]["frame"]["s"] += 1
    result = _cli(str(_write(tmp_path / "tampered.jsonl", events)))
    assert result.returncode == 1
    assert "diverged at frame 7" in result.stdout


def test_cli_replay_of_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_cli_replay_of_a_bad_recording_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"k": "in", "now": 0, "frame": {}}) + "\n", encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    assert "bad recording" in capsys.readouterr().err
