"""`--record-dir` recordings replay frame for frame with `python -m modalcore replay`; they start
with a header naming the engine, and hold no resume token (docs/testers/record-replay.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from modalcore.__main__ import main
from modalcore.engine.record import engine_version, read_events
from modalcore_testing import Client, make_test_config, recordings, start_server


async def test_recorded_session_replays_without_its_resume_tokens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record_dir = tmp_path / "rec"
    with start_server(make_test_config(), record_dir=record_dir, record_name="theme and resume") as server:
        async with server.client() as client:
            await client.join()
            await client.intent("host", "open", iid="a")
            await client.intent("host", "set_theme_mode", {"mode": "light"}, iid="b")
            await client.intent("nowhere", "press", iid="c")
            sent = await client.intent("header/close", "press", iid="d")
            session = server.hub.runners[client.session].session
            server.wait_for(lambda: session.in_seq >= sent["s"])
        first_token = client.resume
        async with Client.open(server.ws_url(), seq=client.seq) as again:
            await again.join(resume=client.resume, last=6)
            await again.intent("host", "open", iid="a")  # a duplicate
            await again.intent("host", "open", iid="e")
            await again.recv_until(lambda f: f.get("iid") == "e")
            await again.quiet(0.2)
    files = recordings(record_dir)
    assert [f.stem for f in files] == [client.session]
    text = files[0].read_text()
    assert len(first_token) > 20
    assert first_token not in text and again.resume not in text  # nobody can take the session over
    assert '"<resume-token-1>"' in text
    head = next(read_events(files[0]))
    assert head["k"] == "header" and head["name"] == "theme and resume"
    assert head["engine"] == engine_version() and head["recorded_at"].endswith("Z")

    assert main(["replay", str(files[0])]) == 0  # exact, placeholders and all
    out = capsys.readouterr().out
    frames = sum(1 for line in text.splitlines() if json.loads(line)["k"] == "out")
    assert out.splitlines()[0] == f"ok        {files[0]}: {frames} frames"
    assert frames > 15

    # tamper with one recorded frame: replay names it, the prop and the input before it
    lines = text.splitlines()
    index = next(i for i, line in enumerate(lines) if '"t":"patch"' in line and '"open":true' in line)
    lines[index] = lines[index].replace('"open":true', '"open":false')
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(tampered)]) == 1
    out = capsys.readouterr().out
    assert f"(patch) on line {index + 1}, after line " in out
    assert "modal/open: false → true" in out


def test_replay_of_a_missing_file(tmp_path: Path) -> None:
    assert main(["replay", str(tmp_path / "none.jsonl")]) == 2
