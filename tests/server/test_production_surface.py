"""`python -m modalcore serve` with a production config (issue 27 items 4 and 5), from outside as
curl would see it: the engine only (no demo page, no demo script, no dev route), security headers
on every response, `/metrics` behind the operator token, every store and key file 0600."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from modalcore.embedded.masterkey import MasterKey
from modalcore.netports import free_port
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, Client

TOKEN = "operator-token-for-the-test-32-bytes-or-more"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("production")
    (folder / "master.key").write_text(MasterKey.generate().hex())
    config = folder / "engine.json"
    config.write_text(json.dumps({
        "store": {"kind": "sqlite", "path": "data/sessions.db"},
        "secret_file": "data/secret",
        "operator_token": TOKEN,
        "analytics": {"mode": "off"},
        "projects": {TEST_PROJECT: {"name": "Prod", "origins": [TEST_ORIGIN]}},
        "siwx": {"db": "data/siwx.db", "key_file": "data/engine.key"},
        "names": {"db": "data/names.db"},
        "embedded": {"db": "data/embedded.db", "master_key_file": "master.key",
                     "smtp": {"host": "127.0.0.1", "port": 9, "tls": "none", "sender": "w@example.com"}},
    }))
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "modalcore", "serve", "--config", str(config), "--port", str(port),
         "--log-level", "warning"],
        cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert process.poll() is None and time.monotonic() < deadline, "serve did not start"
            time.sleep(0.1)
        yield base, folder
    finally:
        process.terminate()
        process.wait(20)


def test_serve_exposes_the_engine_only(engine: tuple[str, Path]) -> None:
    base, _ = engine
    for path in ("/", "/index.html", "/static/demo.js", "/static/index.html", "/static/inspect.js",
                 "/dev/mail", "/onramp/local?order=x"):
        assert httpx.get(base + path, timeout=5).status_code == 404, path
    for path in ("/devchain/31337", "/onramp/local/complete?order=x"):
        assert httpx.post(base + path, json={}, timeout=5).status_code in (404, 405), path
    modal = httpx.get(base + "/static/modal.js", timeout=5)
    assert modal.status_code == 200 and "javascript" in modal.headers["content-type"]
    assert modal.headers["x-content-type-options"] == "nosniff"


def test_metrics_take_the_operator_token(engine: tuple[str, Path]) -> None:
    base, _ = engine
    assert httpx.get(base + "/metrics", timeout=5).status_code == 401
    wrong = httpx.get(base + "/metrics", headers={"Authorization": "Bearer nope"}, timeout=5)
    assert wrong.status_code == 401
    right = httpx.get(base + "/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=5)
    assert right.status_code == 200 and "modalcore_sessions" in right.text


async def test_every_store_and_key_file_is_owner_only(engine: tuple[str, Path]) -> None:
    base, folder = engine
    async with Client.open(base.replace("http", "ws") + f"/ws?project={TEST_PROJECT}") as client:
        await client.join()
        await client.intent("host", "open", iid="saved")  # a used session is saved
        await client.recv_until(lambda f: f["t"] == "intent_ack")
    deadline = time.monotonic() + 10
    while not (folder / "data" / "sessions.db-wal").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    files = sorted((folder / "data").iterdir())
    assert {p.name for p in files} >= {"sessions.db", "embedded.db", "siwx.db", "names.db", "secret", "engine.key"}
    assert {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {p.name: "0o600" for p in files}
