"""A real `python -m modalcore serve` in a scratch folder, joined over a real websocket: the
check `make canary` runs in its venv of the newest releases (issue 37: uvicorn 0.55 answered
every handshake with HTTP 500 while the HTTP routes still served). Exits 0 when a visitor joins,
and gets its snapshot; 1, saying what failed, otherwise."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from modalcore.netports import free_port
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET
from modalcore_testing.join_check import join_session

START_S = 60.0


def write_config(folder: Path) -> Path:
    path = folder / "engine.json"
    path.write_text(json.dumps({
        "secret": TEST_SECRET, "store": {"kind": "sqlite", "path": "sessions.db"},
        "analytics": {"mode": "off"},
        "projects": {TEST_PROJECT: {"name": "Canary", "origins": [TEST_ORIGIN]}},
    }))
    return path


def wait_healthy(process: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + START_S
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("canary join: `modalcore serve` did not start")
        time.sleep(0.2)


async def join(port: int) -> None:
    url = f"ws://127.0.0.1:{port}/ws?project={TEST_PROJECT}"
    try:
        await join_session(url, origin=TEST_ORIGIN, project=TEST_PROJECT)
    except AssertionError as failed:
        raise SystemExit(f"canary join: {failed}") from None


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="canary-serve-") as folder:
        port = free_port()
        config = write_config(Path(folder))
        process = subprocess.Popen(
            [sys.executable, "-m", "modalcore", "serve", "--config", str(config),
             "--port", str(port), "--log-level", "warning"], cwd=folder)
        try:
            wait_healthy(process, port)
            asyncio.run(join(port))
        finally:
            process.terminate()
            process.wait(timeout=30)
    print("canary join: a visitor joined `modalcore serve` over a websocket")
    return 0


if __name__ == "__main__":
    sys.exit(main())
