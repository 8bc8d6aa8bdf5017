"""`--record-dir` recordings replay frame for frame with `python -m modalcore replay`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from modalcore.__main__ import main
from modalcore.testing import Client, make_test_config, recordings, start_server


async def test_recorded_session_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record_dir = tmp_path / "rec"
    with start_server(make_test_config(), record_dir=record_dir) as server:
        async with server.client() as client:
            await client.join()
            await client.intent("host", "open", iid="a")
            await client.intent("host", "set_theme_mode", {"mode": "light"}, iid="b")
            await client.intent("nowhere", "press", iid="c")
            sent = await client.intent("header/close", "press", iid="d")
            session = server.hub.runners[client.session].session
            server.wait_for(lambda: session.in_seq >= sent["s"])
        async with Client.open(server.ws_url(), seq=client.seq) as again:
            await again.join(resume=client.resume, last=6)
            await again.intent("host", "open", iid="a")  # a duplicate
            await again.intent("host", "open", iid="e")
            await again.recv_until(lambda f: f.get("iid") == "e")
            await again.quiet(0.2)
    files = recordings(record_dir)
    assert [f.stem for f in files] == [client.session]
    assert main(["replay", str(files[0])]) == 0
    out = capsys.readouterr().out
    frames = sum(1 for line in files[0].read_text().splitlines() if json.loads(line)["k"] == "out")
    assert out.strip() == f"ok: {frames} frames"
    assert frames > 15

    # tamper with one recorded frame: replay names it
    lines = files[0].read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"t":"patch"' in line)
    lines[index] = lines[index].replace('"open":true', '"open":false')
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(tampered)]) == 1
    out = capsys.readouterr().out
    assert "diverged at frame" in out and "expected:" in out and "actual:" in out


def test_replay_of_a_missing_file(tmp_path: Path) -> None:
    assert main(["replay", str(tmp_path / "none.jsonl")]) == 2
