"""`python -m modalcore serve` as its own process for tests that need a real engine process (kill
-9, several hosts, issue 38 and 42): one process on a free loopback port, its output in a log
file of its working folder (read when a test fails), ready once `/healthz` answers 200."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from modalcore.netports import HOST, free_port
from modalcore_testing import TEST_PROJECT

START_TIMEOUT_S = 120.0  # a loaded shared machine starts Python slowly; never asserted as a duration


class ServeProcess:
    def __init__(self, process: subprocess.Popen[bytes], port: int, folder: Path, log: Path) -> None:
        self.process = process
        self.port = port
        self.folder = folder
        self.log = log

    @property
    def http(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://{HOST}:{self.port}/ws?project={TEST_PROJECT}"

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_healthy(self, timeout: float = START_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{self.http}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"serve did not start:\n{self.output()[-2000:]}")
            time.sleep(0.2)

    def kill(self) -> None:
        """`kill -9`: nothing of the process runs after this."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(20)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def launch_serve(folder: Path, config: Path, *, log_level: str = "info",
                 extra: tuple[str, ...] = ()) -> ServeProcess:
    """`serve --config CONFIG` started in `folder` (its working directory) on a free port; not
    waited for (`wait_healthy`), so several start together."""
    port = free_port()
    log = folder / f"serve-{port}.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "modalcore", "serve", "--config", str(config), "--host", HOST,
             "--port", str(port), "--log-level", log_level, *extra],
            cwd=folder, stdout=out, stderr=subprocess.STDOUT)
    return ServeProcess(process, port, folder, log)


def start_serve(folder: Path, config: Path, *, log_level: str = "info") -> ServeProcess:
    """`launch_serve`, answering `/healthz`."""
    engine = launch_serve(folder, config, log_level=log_level)
    engine.wait_healthy()
    return engine
