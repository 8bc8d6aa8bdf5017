"""`python -m modalcore serve --workers 2` on a real Redis (issue 17): wherever the kernel hands
each reconnect, the visitor gets the same session back, with the state it left."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from modalcore.netports import free_port
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client


def _config(tmp_path: Path, store: dict[str, str]) -> Path:
    path = tmp_path / "engine.json"
    path.write_text(json.dumps({
        "secret": TEST_SECRET, "store": store, "analytics": {"mode": "off"},
        "projects": {TEST_PROJECT: {"name": "Workers", "origins": [TEST_ORIGIN]}},
        "siwx": {"db": "siwx.db", "key_file": "engine.key"},
    }))
    return path


@pytest.fixture()
def two_workers(tmp_path: Path, redis_url: str) -> Iterator[int]:
    port = free_port()
    config = _config(tmp_path, {"kind": "redis", "url": redis_url, "prefix": "serve2:"})
    process = subprocess.Popen(
        [sys.executable, "-m", "modalcore", "serve", "--config", str(config), "--port", str(port),
         "--workers", "2", "--log-level", "warning"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert process.poll() is None and time.monotonic() < deadline, "serve did not start"
            time.sleep(0.1)
        yield port
    finally:
        process.terminate()
        process.wait(20)


async def test_reconnects_to_two_workers_keep_the_session_and_its_state(two_workers: int) -> None:
    url = f"ws://127.0.0.1:{two_workers}/ws?project={TEST_PROJECT}"
    async with Client.open(url) as client:
        await client.join()
        await client.intent("host", "open", iid="first")  # a used session is saved
        await client.recv_until(lambda f: f["t"] == "host_event")
        await client.quiet(0.2)
        session, resume, seq = client.session, client.resume, client.seq
    opened = True
    for round_ in range(6):  # several reconnects: the kernel spreads them over both workers
        async with Client.open(url, seq=seq) as again:
            frames = await again.join(resume=resume, last=0)
            assert frames[0]["t"] == "joined" and frames[0]["session"] == session
            snapshot = next(f for f in frames if f["t"] == "snapshot")
            assert snapshot["tree"]["p"]["open"] is opened, f"round {round_}"
            await again.intent("host", "close" if opened else "open", iid=f"r{round_}")
            await again.recv_until(lambda f: f["t"] == "host_event")
            await again.quiet(0.2)
            opened = not opened
            resume, seq = again.resume, again.seq


def test_serve_refuses_several_workers_without_a_shared_store(tmp_path: Path) -> None:
    config = _config(tmp_path, {"kind": "sqlite", "path": "s.db"})
    result = subprocess.run(
        [sys.executable, "-m", "modalcore", "serve", "--config", str(config), "--port", "1",
         "--workers", "2"], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2
    assert 'needs [store] kind = "redis"' in result.stderr
