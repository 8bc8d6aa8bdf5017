"""`/metrics` under `serve --workers N`: any worker's scrape answers for all of them.

Each worker process writes what it has counted to `<dir>/<pid>.json` (atomically: a temporary
file renamed over the old one) every `WRITE_EVERY_S` when it changed, and at once before it answers
a scrape; the scrape sums every file, and names each live worker by the id it goes by (its audit
signed sets, `/healthz`), its pid beside it (`modalcore_worker_info`). Counters of a worker that is gone stay in the sum (a
replaced worker does not make a counter fall back); its gauges (sessions, relay connections) do
not. `serve` makes the directory before the workers start and removes it after they stop.
Prometheus' own client does the same with memory-mapped files (its "multiprocess mode"); this
engine's handful of numbers needs no new dependency for it (issue 46 weighed it: docs/operators/metrics.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from .metrics import Metrics, WorkerRow

METRICS_DIR_ENV = "MODALCORE_METRICS_DIR"
WRITE_EVERY_S = 0.5
MAX_FILES = 1_000  # workers ever started under one `serve` that a scrape reads (a bound)
MAX_FILE_BYTES = 64 * 1024
_WORKER_ID = re.compile(r"[0-9a-f]{1,32}")  # what a label may carry from another worker's file

log = logging.getLogger(__name__)


@contextlib.contextmanager
def shared_metrics_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="modalcore-metrics-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SharedMetrics:
    """This worker's file in the shared directory, and the sum over all of them."""

    def __init__(self, directory: Path, metrics: Metrics, sessions: Callable[[], int]) -> None:
        self.directory = directory
        self.metrics = metrics
        self.sessions = sessions
        self.pid = os.getpid()
        self._written = ""

    def write(self) -> None:
        text = json.dumps(self.metrics.snapshot(self.sessions()), sort_keys=True)
        if text == self._written:
            return
        path = self.directory / f"{self.pid}.json"
        temporary = path.with_suffix(".tmp")
        temporary.write_text(text)
        os.replace(temporary, path)
        self._written = text

    async def run(self) -> None:
        """Keep this worker's file current (the app's lifespan runs this as a task)."""
        while True:
            try:
                self.write()
            except OSError as error:
                log.warning("metrics for other workers not written: %s", error)
            await asyncio.sleep(WRITE_EVERY_S)

    def _read(self) -> Iterator[tuple[int, dict[str, object], bool]]:
        """(pid, snapshot, live) of every readable worker file, this worker's written first."""
        try:
            self.write()
        except OSError as error:  # the sum then holds this worker's last written numbers
            log.warning("metrics for other workers not written: %s", error)
        for path in sorted(self.directory.glob("*.json"))[:MAX_FILES]:
            try:
                pid = int(path.stem)
                if path.stat().st_size > MAX_FILE_BYTES:
                    raise ValueError("too large")
                snapshot = json.loads(path.read_text())
                if not isinstance(snapshot, dict):
                    raise TypeError("not an object")
            except (OSError, ValueError, TypeError) as error:
                log.warning("metrics of worker file %s skipped: %s", path.name, error)
                continue
            yield pid, snapshot, pid == self.pid or _alive(pid)

    def render(self) -> str:
        total = Metrics()
        per_worker: dict[str, WorkerRow] = {}
        for pid, snapshot, live in self._read():
            try:
                total.add(snapshot, live=live)
            except (ValueError, TypeError, KeyError) as error:
                log.warning("metrics of worker %d skipped: %s", pid, error)
                continue
            if live:
                per_worker[_worker(snapshot, pid)] = WorkerRow(
                    pid, _count(snapshot, "sessions"), _count(snapshot, "intents"),
                    _count(snapshot, "unsaved"))
        return total.render(sum(row.sessions for row in per_worker.values()), per_worker=per_worker)

    def sessions_by_worker(self) -> dict[str, int]:
        """Live sessions of each live worker (/healthz: what the whole engine holds)."""
        return {_worker(snapshot, pid): _count(snapshot, "sessions")
                for pid, snapshot, live in self._read() if live}


def _worker(snapshot: dict[str, object], pid: int) -> str:
    worker = snapshot.get("worker")
    return worker if isinstance(worker, str) and _WORKER_ID.fullmatch(worker) else str(pid)


def _count(snapshot: dict[str, object], name: str) -> int:
    value = snapshot.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
