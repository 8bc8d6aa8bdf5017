"""What an operator reads of `serve --workers 2` (issue 31): every worker logs, in one format that
names its pid (text or JSON), and `/metrics` answers for all workers, whichever takes the scrape."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from modalcore.netports import free_port
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client
from tests.server.test_metrics import OPERATOR, parse

TEXT_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (\d+) [A-Z]+ (\S+) (.*)$")


def _serve(tmp_path: Path, redis_url: str, *extra: str,
           **settings: object) -> tuple[subprocess.Popen[bytes], int, Path]:
    config = tmp_path / "engine.json"
    config.write_text(json.dumps({**settings,
        "secret": TEST_SECRET, "operator_token": OPERATOR, "analytics": {"mode": "off"},
        "store": {"kind": "redis", "url": redis_url, "prefix": f"observed{free_port()}:"},
        "projects": {TEST_PROJECT: {"name": "Workers", "origins": [TEST_ORIGIN]}},
        "siwx": {"db": "siwx.db", "key_file": "engine.key"},
    }))
    port = free_port()
    output = tmp_path / "serve.log"
    with output.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "modalcore", "serve", "--config", str(config), "--port", str(port),
             "--workers", "2", *extra], cwd=tmp_path, stdout=sink, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300  # two workers importing the engine on a loaded machine (~1 min at load 30)
    while True:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                break
        if process.poll() is not None or time.monotonic() > deadline:
            process.terminate()  # no engine left behind by a failed start
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
            raise AssertionError(f"serve did not answer /healthz: {output.read_text()}")
        time.sleep(0.1)
    return process, port, output


@contextlib.contextmanager
def _stopped(process: subprocess.Popen[bytes]) -> Iterator[None]:
    try:
        yield
    finally:
        process.terminate()
        process.wait(20)


def _scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = httpx.get(f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {OPERATOR}"},
                         timeout=5)
    assert response.status_code == 200
    _, samples = parse(response.text)
    return samples


def _worker_sessions(port: int) -> tuple[float, dict[str, float]]:
    samples = _scrape(port)
    per_worker = {dict(labels)["worker"]: value for (name, labels), value in samples.items()
                  if name == "modalcore_worker_sessions"}
    return samples[("modalcore_sessions", ())], per_worker


def _worker_pids(port: int) -> dict[str, int]:
    """Worker id → pid, as `modalcore_worker_info` pairs them."""
    return {dict(labels)["worker"]: int(dict(labels)["pid"]) for (name, labels), _ in _scrape(port).items()
            if name == "modalcore_worker_info"}


@contextlib.asynccontextmanager
async def _clients_on_both_workers(port: int) -> AsyncIterator[int]:
    """Sessions opened until both workers hold one (the kernel spreads connections; bounded)."""
    url = f"ws://127.0.0.1:{port}/ws?project={TEST_PROJECT}"
    async with contextlib.AsyncExitStack() as stack:
        opened = 0
        for _ in range(24):
            client = await stack.enter_async_context(Client.open(url))
            await client.join()
            await client.intent("host", "open")
            await client.recv_until(lambda f: f["t"] == "host_event")
            opened += 1
            if opened >= 2 and _settled(port, opened):
                break
        yield opened


def _settled(port: int, opened: int) -> bool:
    deadline = time.monotonic() + 5  # a worker's file is rewritten every 0.5 s
    while time.monotonic() < deadline:
        total, per_worker = _worker_sessions(port)
        if total == opened:
            return len([n for n in per_worker.values() if n > 0]) == 2
        time.sleep(0.1)
    raise AssertionError(f"the scrape never counted the {opened} open sessions")


async def test_every_scrape_counts_every_workers_sessions(tmp_path: Path, redis_url: str) -> None:
    process, port, output = _serve(tmp_path, redis_url, "--log-level", "warning")
    with _stopped(process):
        async with _clients_on_both_workers(port) as opened:
            answers = [_worker_sessions(port) for _ in range(8)]
            for total, per_worker in answers:
                assert total == opened
                assert len(per_worker) == 2 and sum(per_worker.values()) == opened
                assert all(n > 0 for n in per_worker.values())
        workers = _worker_pids(port)
        assert set(workers) == set(answers[0][1])
    pids = {TEXT_LINE.match(line).group(1)  # type: ignore[union-attr]
            for line in output.read_text().splitlines()
            if TEXT_LINE.match(line) and " modalcore." in line}
    assert {str(pid) for pid in workers.values()} <= pids, f"engine lines only from {pids}, workers {workers}"
    for worker, pid in workers.items():  # one id everywhere: the log's ready line names it
        assert re.search(rf" {pid} INFO modalcore.server.app engine ready: redis store, 1 project, "
                         rf"worker {worker}$", output.read_text(), re.M)


async def test_rule_healthz_on_one_port_names_the_worker_and_counts_the_whole_engine(
        tmp_path: Path, redis_url: str) -> None:
    """Issue 46: two workers on one port; polls of /healthz reach either (the kernel picks), and
    each answer names the worker that answered (the id of its metrics label, the pid of its
    log lines) and counts every worker's sessions, as /metrics does, beside its own."""
    process, port, _ = _serve(tmp_path, redis_url, "--log-level", "warning")
    with _stopped(process):
        async with _clients_on_both_workers(port) as opened:
            total, per_worker = _worker_sessions(port)
            pids = _worker_pids(port)
            seen: dict[str, dict[str, object]] = {}
            for _ in range(200):  # bounded: each poll is a new connection, any worker may take it
                answer = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).json()
                assert answer["ok"] is True and answer["sessions"] == opened == total
                seen[answer["worker"]] = answer
                if len(seen) == 2:
                    break
            assert set(seen) == set(per_worker) == set(pids), (seen, per_worker)
            for worker, answer in seen.items():
                assert answer["pid"] == pids[worker]
                assert answer["worker_sessions"] == per_worker[worker] > 0
            assert sum(int(str(a["worker_sessions"])) for a in seen.values()) == opened


async def test_both_workers_log_and_a_saved_session_is_restored(tmp_path: Path, redis_url: str) -> None:
    """The engine's own lines ("engine ready", "restored from the store") come from both
    worker pids, in the text format; a session that left memory (idle_evict_s) and is rejoined,
    on whichever worker, logs its restore there."""
    process, port, output = _serve(tmp_path, redis_url, idle_evict_s=0.2)
    with _stopped(process):
        async with _clients_on_both_workers(port):
            pass
        url = f"ws://127.0.0.1:{port}/ws?project={TEST_PROJECT}"
        async with Client.open(url) as client:
            await client.join()
            await client.intent("host", "open")
            await client.recv_until(lambda f: f["t"] == "host_event")
            await client.quiet(0.2)
            resume, seq = client.resume, client.seq
        for _ in range(20):  # the detached session leaves memory 0.2 s after its socket closed
            await asyncio.sleep(0.3)
            async with Client.open(url, seq=seq) as again:
                await again.join(resume=resume, last=0)
                await again.quiet(0.1)
                resume, seq = again.resume, again.seq
            if "restored from the store" in output.read_text():
                break
    lines = [m for m in map(TEXT_LINE.match, output.read_text().splitlines()) if m]
    engine_pids = {m.group(1) for m in lines if m.group(2).startswith("modalcore.")}
    assert len(engine_pids) == 2, output.read_text()[-3000:]
    assert str(process.pid) not in engine_pids  # the workers, not the parent
    assert any(m.group(3).startswith("Started server process") for m in lines)  # uvicorn's too
    assert any("restored from the store" in m.group(3) for m in lines)


async def test_json_logs_are_one_object_a_line_with_the_pid(tmp_path: Path, redis_url: str) -> None:
    process, port, output = _serve(tmp_path, redis_url, "--log-format", "json")
    with _stopped(process):
        async with _clients_on_both_workers(port):
            pass
    records = [json.loads(line) for line in output.read_text().splitlines() if line.startswith("{")]
    assert records and set(records[0]) >= {"time", "level", "logger", "pid", "message"}
    ready = {r["pid"] for r in records if r["message"].startswith("engine ready")}
    assert len(ready) == 2 and process.pid not in ready
    assert not [line for line in output.read_text().splitlines() if TEXT_LINE.match(line)]


async def test_rule_serve_logs_notable_happenings_not_a_line_per_intent(tmp_path: Path) -> None:
    """What the docs say `serve` prints (docs/getting-started.md, docs/operators/metrics.md): its start in the text format, a line per socket
    opened, and nothing per intent."""
    config = tmp_path / "engine.json"
    config.write_text(json.dumps({
        "secret": TEST_SECRET, "analytics": {"mode": "off"}, "store": {"kind": "sqlite", "path": "s.db"},
        "projects": {TEST_PROJECT: {"name": "One", "origins": [TEST_ORIGIN]}},
        "siwx": {"db": "siwx.db", "key_file": "engine.key"},
    }))
    port = free_port()
    output = tmp_path / "serve.log"
    with output.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "modalcore", "serve", "--config", str(config), "--port", str(port)],
            cwd=tmp_path, stdout=sink, stderr=subprocess.STDOUT)
    with _stopped(process):
        deadline = time.monotonic() + 60
        while "engine ready" not in output.read_text():
            assert process.poll() is None and time.monotonic() < deadline, output.read_text()
            time.sleep(0.1)
        async with Client.open(f"ws://127.0.0.1:{port}/ws?project={TEST_PROJECT}") as client:
            await client.join()
            await client.quiet(0.2)
            before = len(output.read_text().splitlines())
            for act in ("open", "close") * 5:
                await client.intent("host", act)
                await client.recv_until(lambda f: f["t"] == "host_event")
            await client.quiet(0.3)
            assert len(output.read_text().splitlines()) == before
    lines = output.read_text().splitlines()
    ready = next(line for line in lines if "engine ready" in line)
    assert TEXT_LINE.match(ready) and f" {process.pid} INFO modalcore.server.app " in ready
    assert any("WebSocket /ws" in line and TEXT_LINE.match(line) for line in lines)
