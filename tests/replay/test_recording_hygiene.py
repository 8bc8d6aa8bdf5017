"""Rule: a recording says what recorded it (header: engine version, commit, time, name) and
holds no credential: resume tokens and sign-in session tokens are placeholders, and the
recording still replays exactly."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

from modalcore import samples
from modalcore.engine.record import Recorder, commit_of, engine_version, read_events, replay
from modalcore.enginetest import Harness

from .conftest import ROOT

RESUME = "v1.c2Vzc2lvbi0x.1767225600.Zm9yZ2VkLXNpZ25hdHVyZQ"
SIGN_IN = "eyJhZGRyZXNzIjoiMHhmMzlGZDZlNTFhYWQ4OEY2RjRjZSJ9.0x5b0c1f9a8e7d"


def _record(tmp_path: Path, join: dict[str, object], name: str = "hygiene", **kwargs: object) -> tuple[Harness, io.StringIO]:
    sink = io.StringIO()
    h = Harness.from_join(join, token=RESUME, recorder=Recorder(sink, name=name), **kwargs)  # type: ignore[arg-type]
    return h, sink


def _save(tmp_path: Path, sink: io.StringIO) -> Path:
    path = tmp_path / "recording.jsonl"
    path.write_text(sink.getvalue(), encoding="utf-8")
    return path


def test_the_header_names_engine_commit_time_and_name(tmp_path: Path) -> None:
    _, sink = _record(tmp_path, samples.join(), name="copy flow")
    head = next(read_events(_save(tmp_path, sink)))
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    assert head["k"] == "header" and head["format"] == 2
    assert head["engine"] == engine_version() and head["commit"] == commit_of(ROOT / "modalcore")
    assert head["commit"].removesuffix("+dirty") == commit
    assert head["name"] == "copy flow"
    assert len(head["recorded_at"]) == 20 and head["recorded_at"].endswith("Z")


def test_resume_tokens_become_placeholders_and_replay_stays_exact(tmp_path: Path) -> None:
    h, sink = _record(tmp_path, {**samples.join(), "resume": "an.expired.token.from-an-earlier-visit"})
    h.host("open")
    h.rejoin(last=None)
    h.token = RESUME + "-rotated"  # an engine that issues a new token per join
    h.rejoin(last=h.server_seq)
    path = _save(tmp_path, sink)
    text = path.read_text()
    assert RESUME not in text and "from-an-earlier-visit" not in text
    joined = [e["frame"]["resume"] for e in read_events(path) if e["k"] == "out" and e["frame"]["t"] == "joined"]
    assert joined == ["<resume-token-2>", "<resume-token-2>", "<resume-token-3>"]
    join = next(e for e in read_events(path) if e["k"] == "join")
    assert join["frame"]["resume"] == "<resume-token-1>"
    assert replay(path) is None


def test_sign_in_tokens_become_placeholders_and_replay_stays_exact(tmp_path: Path) -> None:
    h, sink = _record(tmp_path, samples.join(siwx={"required": True, "statement": "Sign in"}))
    h.connect_wallet()
    h.settle_call("siwx.sessions", samples.siwx_sessions())
    h.press("siwx/sign")
    h.settle_call("siwx.nonce", samples.siwx_nonce())
    h.answer("personal_sign", "0x" + "11" * 65)
    h.settle_call("siwx.verify", samples.siwx_verified(token=SIGN_IN))
    assert h.host_state("siwx") == {"enabled": True, "signedIn": True, "token": SIGN_IN}
    path = _save(tmp_path, sink)
    text = path.read_text()
    assert SIGN_IN not in text
    siwx = [e["frame"]["data"] for e in read_events(path)
            if e["k"] == "out" and e["frame"]["t"] == "host_event" and e["frame"]["kind"] == "siwx"]
    assert siwx[-1]["token"] == "<session-token-1>"
    verified = [e for e in read_events(path) if e["k"] == "msg" and "SiwxVerified|" in str(e["msg"])]
    assert verified[0]["msg"]["data"]["result"]["token"] == "<session-token-1>"
    assert replay(path) is None


def test_a_recording_of_placeholders_is_left_as_it_is(tmp_path: Path) -> None:
    first = _save(tmp_path, _record(tmp_path, samples.join())[1])
    again = io.StringIO()
    h = Harness.from_join(samples.join(), token="<resume-token-1>", recorder=Recorder(again))
    h.host("open")
    assert "<resume-token-1>" in again.getvalue() and "<resume-token-1>" in first.read_text()


def test_rule_uncommitted_engine_code_is_stamped_dirty(tmp_path: Path) -> None:
    """A recording or `replay --update` made by changed code names `<HEAD>+dirty`, never HEAD
    alone (issue 31): a changed file, a new file, each makes it dirty."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tmp_path, capture_output=True, text=True,
                              check=True).stdout.strip()

    git("init", "-q")
    (tmp_path / "engine.py").write_text("A = 1\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    head = git("rev-parse", "HEAD")
    assert commit_of(tmp_path) == head
    (tmp_path / "engine.py").write_text("A = 2\n")
    assert commit_of(tmp_path) == f"{head}+dirty"
    git("checkout", "--", "engine.py")
    (tmp_path / "new.py").write_text("")
    assert commit_of(tmp_path) == f"{head}+dirty"
    assert commit_of(tmp_path.parent / "nowhere") is None
