"""Rules of `python -m modalcore replay`: files and folders, one line each and totals, exit 1
when one diverged; --update re-saves the frames and says what changed; --transcript tells the
session in steps; --tree-at LINE shows the tree there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from modalcore.__main__ import build_parser, main
from modalcore_dev.__main__ import build_parser as build_demo_parser
from modalcore.engine.record import read_events, replay

from .conftest import RENAMED, SEQUENCES, SESSIONS


def _replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["replay", *args])
    return status, capsys.readouterr().out


def test_folders_give_one_line_per_file_and_totals(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _replay(capsys, str(SESSIONS), str(SEQUENCES))
    assert status == 0
    lines = out.splitlines()
    files = sorted(SESSIONS.glob("*.jsonl")) + sorted(SEQUENCES.glob("*.jsonl"))
    assert [line.split()[1].rstrip(":") for line in lines[:-1]] == [str(f) for f in files]
    assert all(line.startswith("ok ") for line in lines[:-1])
    assert lines[-1].startswith(f"total: {len(files)} files, {len(files)} ok (")


@pytest.mark.usefixtures("renamed_snack")
def test_one_diverging_file_in_a_folder_makes_the_exit_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _replay(capsys, str(SESSIONS))
    assert status == 1
    assert "DIVERGED  " + str(SESSIONS / "snack_timers.jsonl") in out
    assert "total: 5 files, 4 ok, 1 diverged or failed" in out


def test_a_malformed_file_among_good_ones_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(SESSIONS / "navigate.jsonl", tmp_path / "a.jsonl")
    (tmp_path / "b.jsonl").write_text('{"k": "join"\n')
    assert main(["replay", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert "ok        " in captured.out and "1 unreadable" in captured.out
    assert "bad recording" in captured.err and "line 1: not JSON" in captured.err


@pytest.mark.usefixtures("renamed_snack")
def test_update_resaves_the_frames_and_prints_what_changed(
    sessions_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = sessions_copy / "snack_timers.jsonl"
    inputs = [e for e in read_events(path) if e["k"] not in ("out", "header")]
    status, out = _replay(capsys, "--update", str(sessions_copy))
    assert status == 0
    assert f"updated   {path}: 2 of 36 frames changed, now 36 frames" in out
    assert f"snackbar/message: 'Address copied' → '{RENAMED}'" in out
    assert "total: 5 files, 4 ok, 1 updated" in out
    assert replay(path) is None  # today's engine now matches
    assert [e for e in read_events(path) if e["k"] not in ("out", "header")] == inputs
    head = next(read_events(path))
    assert head["name"] == "snack_timers" and "updated" in head
    assert sum(1 for other in sessions_copy.glob("*.jsonl")
               if other.read_bytes() != (SESSIONS / other.name).read_bytes()) == 1


def test_update_of_a_matching_recording_changes_nothing(
    sessions_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "--update", str(sessions_copy)]) == 0
    for path in sessions_copy.glob("*.jsonl"):
        assert path.read_bytes() == (SESSIONS / path.name).read_bytes()


def test_transcript_tells_the_steps_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _replay(capsys, "--transcript", str(SESSIONS / "navigate.jsonl"))
    assert status == 0
    assert "press connect/all-wallets → AllWallets" in out
    assert "on screen: 'All Wallets' · 'Dev Wallet'" in out
    assert "host open view='AllWallets' → AllWallets" in out
    assert "press header/close → Connect (closed)" in out


def test_transcript_names_effects_and_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    _, out = _replay(capsys, "--transcript", str(SESSIONS / "connect_rejected_retry.jsonl"))
    assert "asks the browser: eth_requestAccounts (e1)" in out
    assert "effect_result e1 for eth_requestAccounts: error 4001 'User rejected the request.'" in out
    assert "+ 'Try again'" in out
    _, out = _replay(capsys, "--transcript", str(SESSIONS / "safety.jsonl"))
    assert "refused: invalid" in out and "refused: rate_limited" in out


def test_tree_at_a_line_prints_the_tree_then(capsys: pytest.CaptureFixture[str]) -> None:
    path = SESSIONS / "navigate.jsonl"
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1)
                if '"node":"connect/all-wallets"' in text)
    status, out = _replay(capsys, "--tree-at", str(line + 1), str(path))  # a line among its outputs
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == f"tree after line {line}: press connect/all-wallets"
    assert lines[1].startswith("modal  [modal]  open=true") and "view='AllWallets'" in lines[1]
    assert any(text.strip().startswith("view/AllWallets  [view]") for text in lines)
    assert "draws it differently" not in out


@pytest.mark.usefixtures("renamed_snack")
def test_tree_at_says_how_todays_engine_differs(capsys: pytest.CaptureFixture[str]) -> None:
    path = SESSIONS / "snack_timers.jsonl"
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if '"message":"Address copied"' in text)
    _, out = _replay(capsys, "--tree-at", str(line), str(path))
    assert "snackbar  [snackbar]  message='Address copied'" in out
    assert f"today's engine draws it differently:\n    snackbar/message: 'Address copied' → '{RENAMED}'" in out


def test_tree_at_takes_one_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--tree-at", "3", str(SESSIONS)]) == 2


def test_serve_and_demo_take_a_record_name() -> None:
    for parser, command in ((build_parser(), "serve"), (build_demo_parser(), "demo")):
        args = parser.parse_args([command, "--record-dir", "rec", "--record-name", "send flow"])
        assert (args.record_dir, args.record_name) == ("rec", "send flow")


def test_a_recording_without_outputs_points_to_update(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "inputs.jsonl"
    path.write_text("".join(line + "\n" for line in (SESSIONS / "navigate.jsonl").read_text().splitlines()
                            if '"k":"out"' not in line))
    status, out = _replay(capsys, str(path))
    assert status == 1
    assert "no expected frames recorded; --update saves today's 38" in out
    assert main(["replay", "--update", str(path)]) == 0
    assert replay(path) is None


@pytest.mark.parametrize("name", ["sessions/navigate.jsonl", "sequences/connect_and_copy.jsonl"])
def test_rule_tree_at_past_the_end_is_an_error_with_a_message(
        capsys: pytest.CaptureFixture[str], name: str) -> None:
    path = SESSIONS.parent / name
    lines = len(path.read_text().splitlines())
    assert main(["replay", "--tree-at", str(lines + 1), str(path)]) == 2
    captured = capsys.readouterr()
    assert f"--tree-at {lines + 1} is past the end of {path} ({lines} lines)" in captured.err
    assert captured.out == ""
    assert main(["replay", "--tree-at", str(lines), str(path)]) == 0  # the last line is one
