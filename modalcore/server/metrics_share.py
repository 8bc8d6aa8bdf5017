"""`/metrics` under `serve --workers N`: any worker's scrape answers for all of them.

Each worker process writes what it has counted to `<dir>/<pid>.json` (atomically: a temporary
file renamed over the old one) every `WRITE_EVERY_S` when it changed, and at once before it answers
a scrape; the scrape sums every file. Counters of a worker that is gone stay in the sum (a
replaced worker does not make a counter fall back); its gauges (sessions, relay connections) do
not. `serve` makes the directory before the workers start and removes it after they stop.
Prometheus' own client does the same with memory-mapped files (its "multiprocess mode"); this
engine's handful of numbers needs no new dependency for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from .metrics import Metrics

METRICS_DIR_ENV = "MODALCORE_METRICS_DIR"
WRITE_EVERY_S = 0.5
MAX_FILES = 1_000  # workers ever started under one `serve` that a scrape reads (a bound)
MAX_FILE_BYTES = 64 * 1024

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

    def render(self) -> str:
        try:
            self.write()
        except OSError as error:  # the sum then holds this worker's last written numbers
            log.warning("metrics for other workers not written: %s", error)
        total = Metrics()
        per_worker: dict[str, int] = {}
        for path in sorted(self.directory.glob("*.json"))[:MAX_FILES]:
            try:
                pid = int(path.stem)
                if path.stat().st_size > MAX_FILE_BYTES:
                    raise ValueError("too large")
                snapshot = json.loads(path.read_text())
                live = pid == self.pid or _alive(pid)
                total.add(snapshot, live=live)
            except (OSError, ValueError, TypeError, KeyError) as error:
                log.warning("metrics of worker file %s skipped: %s", path.name, error)
                continue
            if live:
                sessions = snapshot.get("sessions")
                per_worker[str(pid)] = sessions if isinstance(sessions, int) else 0
        return total.render(sum(per_worker.values()), per_worker=per_worker)
