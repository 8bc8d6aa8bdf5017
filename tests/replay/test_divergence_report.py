"""Rule: a divergence says what differs (node id path and prop, old → new), on which line of
the recording, and after which input, in words; --all lists every diverging frame with a count,
--full adds the raw frames."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from modalcore.__main__ import main
from modalcore.engine.record import replay_file
from modalcore.replay.report import explain

from .conftest import RENAMED, SESSIONS


def _replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["replay", *args])
    return status, capsys.readouterr().out


def _line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


@pytest.mark.usefixtures("renamed_snack")
def test_a_changed_text_is_named_by_node_and_prop_after_the_effect_result(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = SESSIONS / "snack_timers.jsonl"
    status, out = _replay(capsys, str(path))
    assert status == 1
    first_patch = _line_of(path, '"message":"Address copied"')
    assert (f"diverged at frame 25 (patch) on line {first_patch}, after line {first_patch - 1}: "
            "effect_result e3 for clipboard") in out
    assert "snackbar/message: 'Address copied' → 'Copied to clipboard'" in out
    assert "1 more diverging frame (--all lists every one)" in out
    assert "expected:" not in out  # the raw frames only with --full
    assert len(out) < 1000


@pytest.mark.usefixtures("renamed_snack")
def test_all_lists_every_diverging_frame_and_counts_them(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _replay(capsys, "--all", str(SESSIONS / "snack_timers.jsonl"))
    assert status == 1
    assert "2 of 36 frames differ" in out
    assert out.count("diverged at frame") == 2
    assert "after line 44: SnackReshowDue" in out
    assert "more diverging" not in out


@pytest.mark.usefixtures("renamed_snack")
def test_full_keeps_the_raw_frames(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _replay(capsys, "--full", str(SESSIONS / "snack_timers.jsonl"))
    assert status == 1
    expected = next(line for line in out.splitlines() if line.strip().startswith("expected:"))
    actual = next(line for line in out.splitlines() if line.strip().startswith("actual:"))
    assert json.loads(expected.split(":", 1)[1])["ops"][0][2]["message"] == "Address copied"
    assert json.loads(actual.split(":", 1)[1])["ops"][0][2]["message"] == RENAMED


def test_a_tampered_snapshot_names_the_node_and_the_socket_join(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    lines = (SESSIONS / "navigate.jsonl").read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"t":"snapshot"' in line)
    lines[index] = lines[index].replace('"text":"Get started"', '"text":"Start here"', 1)
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(lines) + "\n")
    status, out = _replay(capsys, str(tampered))
    assert status == 1
    assert f"(snapshot) on line {index + 1}, after line 3: socket joined (new session)" in out
    assert "connect/footer/link/text: 'Start here' → 'Get started'" in out


def test_a_frame_the_engine_no_longer_sends_is_said_so(tmp_path: Path) -> None:
    lines = (SESSIONS / "navigate.jsonl").read_text().splitlines()
    lines.append(json.dumps({"k": "out", "frame": {"t": "ack", "s": 99, "a": 0}}))
    path = tmp_path / "extra.jsonl"
    path.write_text("\n".join(lines) + "\n")
    [item] = explain(replay_file(path))
    assert item.differences == ["today's engine no longer sends this frame: {\"t\": \"ack\"}"]
    assert item.divergence.line == len(lines)


def test_an_intent_on_a_missing_node_reads_as_a_refusal(tmp_path: Path) -> None:
    lines = (SESSIONS / "navigate.jsonl").read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"node":"header/back"' in line)
    lines[index] = lines[index].replace('"node":"header/back"', '"node":"no/such/node"')
    path = tmp_path / "tampered-in.jsonl"
    path.write_text("\n".join(lines) + "\n")
    first = explain(replay_file(path))[0]
    assert first.before == f"after line {index + 1}: press no/such/node"
    assert "status: 'ok' → 'invalid'" in first.differences


@pytest.mark.usefixtures("renamed_snack")
def test_a_frame_after_the_trees_already_differed_is_named_by_node_not_by_json_path(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The re-shown snackbar's patch sets a message the recorded one did not: said by node id
    and prop, never as `ops[0][2].message` (issue 31)."""
    status, out = _replay(capsys, "--all", str(SESSIONS / "snack_timers.jsonl"))
    assert status == 1
    assert "snackbar/message (in the patch): (absent) → 'Address copied'" in out
    assert "ops[" not in out and "tree." not in out
