"""The inspector's API over a folder of recordings (issue 20, part 1), without a browser."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from modalcore.__main__ import main
from modalcore.inspect.server import create_inspector

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sessions"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in ("navigate.jsonl", "snack_timers.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    (tmp_path / "broken.jsonl").write_text('{"k":"out","frame":{}}\n')
    return tmp_path


def test_rule_the_listing_names_project_origin_length_and_outcome(folder: Path) -> None:
    client = TestClient(create_inspector(folder))
    listed = {r["name"]: r for r in client.get("/api/recordings").json()["recordings"]}
    assert listed["navigate.jsonl"] == {
        "name": "navigate.jsonl", "title": "navigate", "project": "demo",
        "origin": "http://localhost:8000", "length": 11, "outcome": "replays identically",
        "diverges_at": None, "ok": True}
    assert listed["broken.jsonl"]["outcome"] == "unreadable: line 1: an output before any input"


def test_rule_only_recordings_of_the_folder_are_served(folder: Path) -> None:
    client = TestClient(create_inspector(folder))
    for name in ("..%2Fsecret.jsonl", "nope.jsonl", "%2Fetc%2Fpasswd"):
        assert client.get(f"/api/recordings/{name}").status_code == 404
    assert client.get("/api/recordings/navigate.jsonl/steps/99").status_code == 404
    assert client.get("/api/recordings/navigate.jsonl/diff?a=0&b=x").status_code == 400


def test_rule_a_step_carries_both_trees_the_frames_bytes_and_the_model_diff(folder: Path) -> None:
    client = TestClient(create_inspector(folder))
    step = client.get("/api/recordings/navigate.jsonl/steps/3").json()
    assert step["said"] == "press connect/all-wallets" and step["diverges"] is False
    assert step["recorded_tree"] == step["replayed_tree"] and step["tree_diff"] == []
    assert step["bytes"] == sum(f["bytes"] for f in step["recorded_frames"]) > 0
    diff = client.get("/api/recordings/navigate.jsonl/diff?a=2&b=3").json()
    assert "directory.pages: 'idle' → 'loading'" in diff["lines"]
    assert any("AllWallets" in line for line in diff["lines"] if line.startswith("router.history"))


def test_rule_an_exported_test_replays_to_its_step_and_passes(folder: Path, tmp_path: Path) -> None:
    client = TestClient(create_inspector(folder, tmp_path / "out"))
    written = Path(client.post("/api/recordings/navigate.jsonl/export?step=5").json()["path"])
    assert written.parent == tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(written)], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_rule_inspect_on_a_missing_folder_is_a_clear_error(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(tmp_path / "none")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_rule_a_hand_written_sequence_is_read_as_replay_reads_it(tmp_path: Path) -> None:
    """Comments and steps by name (replay/sequence.py), not "unreadable: not JSON"; each step is
    numbered by the sequence line that made it, and a failed expectation names its line."""
    from modalcore.inspect.recording import inspect_file

    source = Path(__file__).resolve().parents[2] / "fixtures" / "sequences" / "connect_and_copy.jsonl"
    inspection = inspect_file(source)
    assert inspection.listing()["outcome"] == "replays identically" and inspection.listing()["ok"]
    assert [s.line for s in inspection.steps if s.kind == "timer"] == [10]  # {"wait": 3000}
    failing = tmp_path / "failing.jsonl"
    failing.write_text('# opens, then expects the wrong view\n{"host": "open"}\n'
                       '{"expect": {"view": "Account"}}\n')
    listed = inspect_file(failing).listing()
    assert listed["outcome"].startswith("fails at line 3:") and not listed["ok"]


def test_rule_a_failing_sequence_names_the_step_it_failed_at_and_its_lines(tmp_path: Path) -> None:
    """issue 46 item 5: the page opens a failing sequence at the step its failed expectation
    checked (the last one made at or before the failing line) and numbers steps by line."""
    failing = tmp_path / "failing.jsonl"
    failing.write_text('# opens, then expects the wrong view\n{"connect": {}}\n'
                       '{"host": "open"}\n{"expect": {"view": "Connect"}}\n{"host": "close"}\n')
    client = TestClient(create_inspector(tmp_path))
    timeline = client.get("/api/recordings/failing.jsonl").json()
    assert timeline["sequence"] is True
    assert timeline["failed"].startswith("line 4:")
    lines = [s["line"] for s in timeline["steps"]]
    assert lines[0] == 0  # the join the sequence did not write (the page says "join")
    assert lines[-1] == 3 and set(lines) == {0, 2, 3}  # nothing from line 5: it stopped at 4
    assert timeline["failed_at"] == len(lines) - 1  # the `host open` step the expectation checked
    recorded = client.get("/api/recordings/navigate.jsonl")
    assert recorded.status_code == 404  # (not in this folder)
    shutil.copy(FIXTURES / "navigate.jsonl", tmp_path / "navigate.jsonl")
    plain = client.get("/api/recordings/navigate.jsonl").json()
    assert plain["sequence"] is False and plain["failed_at"] is None
