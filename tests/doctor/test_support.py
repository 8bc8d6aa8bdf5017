"""Support codes into redacted replays (issue 44 item 2): the code a visitor copies from a failed
connect names that session's recording for its own project only; the replay an operator gets
carries no email address, no signature and no secret, and `modalcore inspect` steps through it.
Every refusal (a malformed code, an unknown one, another project's) is typed and changes nothing."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import httpx
import pytest

from modalcore import samples
from modalcore.__main__ import main
from modalcore.engine.record import Recorder
from modalcore.enginetest import Harness
from modalcore.inspect.recording import inspect_file
from modalcore.slices.doctor import support_code
from modalcore.support import SupportRefusal, find_recording, support_replay
from modalcore_testing import make_test_config, start_server

EMAIL = "alice.visitor@example.com"
SIGNATURE = "0x" + "5a" * 65
TOKEN = "operator-token-for-the-support-test"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _record_rejected(folder: Path, project: str, session: str) -> str:
    """A session of `project` whose wallet rejects, saying an email and a signature in its
    error; returns the support code its failure screen copies."""
    sink = io.StringIO()
    join = {**samples.join(), "project": project}
    h = Harness.from_join(join, session_id=session, recorder=Recorder(sink, name=session))
    h.host("open")
    h.press(next(n.id for n in h.find_text("Dev Wallet", exact=True) if n.t == "wallet-item"))
    h.answer("eth_requestAccounts", code=4001, message=f"{EMAIL} rejected {SIGNATURE}")
    h.press("external/support-code")
    code = str(h.last_effect()["req"]["text"])
    h.answer_last(None)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session}.jsonl").write_text(sink.getvalue(), encoding="utf-8")
    assert code == support_code(project, session)
    return code


def test_a_support_code_opens_its_sessions_replay_redacted(tmp_path: Path) -> None:
    code = _record_rejected(tmp_path, "project-a", "session-a")
    raw = (tmp_path / "session-a.jsonl").read_text()
    assert EMAIL in raw and SIGNATURE in raw  # the recording itself has them
    lines = support_replay(tmp_path, "project-a", code)
    assert isinstance(lines, list)
    text = "\n".join(lines)
    assert EMAIL not in text and SIGNATURE not in text and "<email-1>" in text and "<signature-1>" in text
    out = tmp_path / "out" / "support.jsonl"
    out.parent.mkdir()
    out.write_text(text + "\n")
    inspection = inspect_file(out)  # the inspector steps through it
    assert inspection.problem == "" and inspection.project == "project-a"
    assert len(inspection.steps) > 5
    assert any("Copy support code" in json.dumps(s.recorded_tree) for s in inspection.steps)
    # the redacted input replays into the same screens: the wallet's words are not what counts
    assert inspection.first_divergence is None


def test_a_code_of_one_project_cannot_open_another_projects_replay(tmp_path: Path) -> None:
    code_a = _record_rejected(tmp_path, "project-a", "session-a")
    code_b = _record_rejected(tmp_path, "project-b", "session-b")
    before = sorted(p.read_bytes() for p in tmp_path.iterdir())
    assert find_recording(tmp_path, "project-b", code_a) == SupportRefusal("unknown_support_code")
    assert find_recording(tmp_path, "project-a", code_b) == SupportRefusal("unknown_support_code")
    assert find_recording(tmp_path, "project-a", "NOPE-NOPE-NOPE") == SupportRefusal("unknown_support_code")
    assert find_recording(tmp_path, "project-a", "../../etc/passwd") == SupportRefusal("malformed_support_code")
    assert find_recording(tmp_path, "project-b", code_b) == tmp_path / "session-b.jsonl"
    assert sorted(p.read_bytes() for p in tmp_path.iterdir()) == before  # nothing changed


def test_the_cli_writes_the_replay_and_refuses_another_projects_code(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = _record_rejected(tmp_path / "rec", "project-a", "session-a")
    out = tmp_path / "support.jsonl"
    assert main(["doctor", "replay", code, "--project", "project-a", "--record-dir",
                 str(tmp_path / "rec"), "--out", str(out)]) == 0
    assert EMAIL not in out.read_text() and "ok:" in capsys.readouterr().out
    assert main(["doctor", "replay", code, "--project", "project-b", "--record-dir",
                 str(tmp_path / "rec"), "--out", str(tmp_path / "other.jsonl")]) == 2
    assert "unknown support code" in capsys.readouterr().err
    assert not (tmp_path / "other.jsonl").exists()


def test_the_operator_route_answers_the_replay_and_typed_refusals_without_a_traceback(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    rec = tmp_path / "rec"
    code = _record_rejected(rec, "project-a", "session-a")
    config = make_test_config(operator_token=TOKEN)
    with caplog.at_level(logging.DEBUG), start_server(config, record_dir=rec) as server:
        url = server.http_url + "/operator/support"
        assert httpx.get(url, params={"project": "project-a", "code": code}, timeout=5).status_code == 401
        ok = httpx.get(url, params={"project": "project-a", "code": code}, headers=AUTH, timeout=5)
        assert ok.status_code == 200 and EMAIL not in ok.text and "<email-1>" in ok.text
        assert ok.headers["cache-control"] == "no-store"
        foreign = httpx.get(url, params={"project": "project-b", "code": code}, headers=AUTH, timeout=5)
        assert (foreign.status_code, foreign.json()) == (404, {"error": "unknown_support_code"})
        bad = httpx.get(url, params={"project": "project-a", "code": "x" * 5000}, headers=AUTH, timeout=5)
        assert (bad.status_code, bad.json()) == (400, {"error": "malformed_support_code"})
    assert not [r for r in caplog.records if r.exc_info]
