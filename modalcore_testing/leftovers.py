"""Tests leave nothing running (issue 37 item 5): a pytest plugin that fails the run when a test
left a process behind (a server, a chain, a bundler, a browser), names it, and ends it.

At the start of the session the plugin puts a marker in the environment, `MODALCORE_TEST_RUN`,
that every process the tests start inherits (subprocess, Playwright, `make`, what those start in
turn, even once re-parented to PID 1). When the tests are done and every fixture is torn down,
any process other than pytest whose environment (`/proc/PID/environ`, the one it was started
with) carries the marker was left behind. Those that exit within a short grace (a browser's
helper processes a moment late) are fine; the rest are ended (SIGTERM, then SIGKILL) and the run
fails with one report naming each: its PID, its command line and the test file that was running
when it was first seen (scanned at the end of each test file).

A pytest run inside a test (a subprocess) marks its own children `OUTER/INNER`: it checks only
those, never its parent run's, and the parent run still sees whatever it leaves.

Under pytest-xdist (`make test` runs `-n auto`) each worker checks its own tests' processes after
its last teardown and hands what it found to the controller (`workeroutput`); the controller,
once every worker has exited, checks what is still marked with its own run and reports all of
it as one failed `leftover processes`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from _pytest.reports import TestReport

MARKER = "MODALCORE_TEST_RUN"
GRACE_S = 5.0  # a child that exits this late is not a leftover (a browser's helpers)
STOP_S = 3.0  # SIGTERM, then SIGKILL after this long
PROC = Path("/proc")
REPORT_ID = "leftover processes"
WORKER_OUTPUT = "modalcore_leftovers"  # an xdist worker's leftovers, for its controller


@dataclass(frozen=True)
class Leftover:
    pid: int
    command: str
    started_in: str  # the test file running when the process was first seen, or "?"

    def describe(self) -> str:
        return f"pid {self.pid} (first seen during {self.started_in}): {self.command}"


def _marker_of(pid: int) -> str | None:
    try:
        environ = (PROC / str(pid) / "environ").read_bytes()
    except OSError:  # gone, a zombie, or not ours to read
        return None
    prefix = MARKER.encode() + b"="
    for entry in environ.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix):].decode(errors="replace")
    return None


def _command(pid: int) -> str:
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return "?"
    return raw.rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")[:300] or "?"


def _stat(pid: int) -> list[str]:
    """/proc/PID/stat's fields after the command name: state first, start time at index 19."""
    try:
        return (PROC / str(pid) / "stat").read_text().rpartition(")")[2].split()
    except OSError:
        return []


def _is_zombie(pid: int) -> bool:
    return _stat(pid)[:1] in ([], ["Z"])


def _identity(pid: int) -> tuple[int, str]:
    """The PID with its start time: a PID reused later is another process."""
    fields = _stat(pid)
    return pid, fields[19] if len(fields) > 19 else "?"


def marked(run: str) -> Iterator[int]:
    """Live processes, pytest's own aside, started (directly or not) during the run `run`."""
    own = os.getpid()
    for entry in PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == own:
            continue
        pid = int(entry.name)
        value = _marker_of(pid)
        if value is not None and (value == run or value.startswith(run + "/")) and not _is_zombie(pid):
            yield pid


def wait_gone(run: str, grace_s: float = GRACE_S) -> list[int]:
    """The marked processes still alive after up to `grace_s` seconds."""
    deadline = time.monotonic() + grace_s
    while True:
        alive = sorted(marked(run))
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.1)


def end(pids: list[int], stop_s: float = STOP_S) -> None:
    """SIGTERM each, SIGKILL what is still alive after `stop_s`."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + stop_s
        while pids and time.monotonic() < deadline:
            pids = [pid for pid in pids if not _is_zombie(pid) and (PROC / str(pid)).exists()]
            time.sleep(0.05)


def run_group(args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """`subprocess.run(args, capture_output=True, text=True)` in a process group of its own: past
    `timeout` the whole group is killed, what the command started included (subprocess.run kills
    the command alone, and a tool's workers outlived it), and the test fails with its output."""
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        raise AssertionError(f"{args} did not end within {timeout:.0f} s (its process group killed):\n"
                             f"{stdout[-2000:]}\n{stderr[-2000:]}") from None
    return subprocess.CompletedProcess(args, process.returncode, stdout, stderr)


class LeftoverCheck:
    """The plugin: marks the run, notes at each test file's end which processes are new, and after
    the last teardown reports and ends what is still alive."""

    def __init__(self) -> None:
        outer = os.environ.get(MARKER)
        own = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.run = f"{outer}/{own}" if outer else own
        os.environ[MARKER] = self.run
        self.first_seen: dict[tuple[int, str], tuple[str, str]] = {}  # -> (test file, command line)
        self.checked = False  # the check ran after the last teardown
        self.from_workers: list[str] = []  # under xdist, the controller's: its workers' leftovers

    def note(self, test_file: str) -> None:
        for pid in marked(self.run):
            self.first_seen.setdefault(_identity(pid), (test_file, _command(pid)))

    def leftovers(self, grace_s: float = GRACE_S) -> list[Leftover]:
        found = []
        for pid in wait_gone(self.run, grace_s):
            started_in, command = self.first_seen.get(_identity(pid), ("?", _command(pid)))
            found.append(Leftover(pid, command, started_in))
        return found

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        yield
        test_file = item.nodeid.split("::")[0]
        if nextitem is None or nextitem.nodeid.split("::")[0] != test_file:
            self.note(test_file)

    def report(self, session: pytest.Session, descriptions: list[str]) -> None:
        """One failed report naming every leftover (already ended)."""
        lines = [f"{len(descriptions)} process(es) the tests started were still running after the last "
                 f"teardown (ended now: SIGTERM, then SIGKILL):"]
        lines += ["  " + description for description in descriptions]
        report = TestReport(nodeid=REPORT_ID, location=("conftest", None, REPORT_ID), keywords={},
                            outcome="failed", longrepr="\n".join(lines), when="call")
        session.config.hook.pytest_runtest_logreport(report=report)
        session.testsfailed += 1

    def ended(self) -> list[str]:
        """The leftovers after the grace, ended, described."""
        found = self.leftovers()
        end([leftover.pid for leftover in found])
        return [leftover.describe() for leftover in found]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        result = yield  # stopped early (-x, Ctrl-C): the fixtures are not torn down yet, see below
        if _is_xdist_controller(session.config):
            return result  # its workers are still exiting: checked in pytest_sessionfinish
        self.checked = True
        found = self.ended()
        if _is_xdist_worker(session.config):
            # a worker reports only its tests' own ids: the controller reports these
            session.config.workeroutput[WORKER_OUTPUT] = found  # type: ignore[attr-defined]
        elif found:
            self.report(session, found)
        return result

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object, error: object) -> None:
        """xdist's controller, as each worker ends: what it found and ended."""
        self.from_workers += getattr(node, "workeroutput", {}).get(WORKER_OUTPUT, [])

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """xdist's controller, once every worker has exited: what the workers found and what
        is still running; after a run stopped early, once the fixtures are torn down (runner's
        sessionfinish): end what is left, and say so (the run has failed already)."""
        if self.checked:
            return
        found = self.ended()
        if _is_xdist_controller(session.config):
            if found := self.from_workers + found:
                self.report(session, found)
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
            return
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        for description in found:
            if reporter is not None:
                reporter.write_line(f"leftover process ended: {description}")


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _is_xdist_controller(config: pytest.Config) -> bool:
    """`pytest -n N`: this process runs no test, its workers do (each with this plugin)."""
    return config.pluginmanager.has_plugin("dsession")


def pytest_configure(config: pytest.Config) -> None:
    if PROC.is_dir() and not config.pluginmanager.has_plugin("leftover-check"):
        config.pluginmanager.register(LeftoverCheck(), "leftover-check")
