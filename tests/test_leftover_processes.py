"""Tests leave nothing running (issue 37 item 5): a run whose test leaves a process behind fails,
names it (command line, the test file that ran when it was first seen) and ends it; a process
that exits within the grace (a browser's helper a moment late) does not fail it.

Runs pytest on two small test files in a temporary folder with the plugin
(modalcore_testing/leftovers.py) as tests/conftest.py loads it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from modalcore_testing.leftovers import MARKER, REPORT_ID, marked, run_group

LEAKY = """
import subprocess

def test_starts_a_server_and_forgets_it():
    subprocess.Popen(["sleep", "3737"], start_new_session=True)  # re-parented once pytest exits

def test_starts_and_stops_one():
    process = subprocess.Popen(["sleep", "3738"])
    process.kill()
    process.wait()
"""

LATE = """
import subprocess

def test_a_helper_that_exits_a_moment_later():
    subprocess.Popen(["sleep", "1"], start_new_session=True)
"""


def _commands(pids: list[int]) -> list[str]:
    found = []
    for pid in pids:
        try:
            found.append((Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            pass
    return found


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "xdist workers"])
def test_rule_a_run_that_leaves_a_process_fails_names_it_and_ends_it(tmp_path: Path, workers: list[str]) -> None:
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["modalcore_testing.leftovers"]\n')
    (tmp_path / "test_leaky.py").write_text(textwrap.dedent(LEAKY))
    (tmp_path / "test_late.py").write_text(textwrap.dedent(LATE))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *workers, str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "1 failed, 3 passed" in output, output
    assert f"FAILED {REPORT_ID}" in output, output
    # a set: with CI set in the environment pytest repeats the report in its untruncated summary
    named = sorted({line.strip() for line in output.splitlines() if line.startswith("  pid ")})
    assert len(named) == 1, output  # `sleep 1` exited within the grace, `sleep 3738` was stopped
    assert "sleep 3737" in named[0] and "test_leaky.py" in named[0], output
    # ended, and this run (the outer one: its marker prefixes the inner run's) sees nothing left
    assert not [c for c in _commands(list(marked(os.environ[MARKER]))) if c.startswith("sleep 373")]



def test_rule_a_command_past_its_bound_is_killed_with_what_it_started() -> None:
    """`run_group` (the load tool's test once left its `serve` workers when subprocess.run's
    timeout killed the tool alone)."""
    with pytest.raises(AssertionError, match="did not end within 1 s"):
        run_group(["sh", "-c", "sleep 3741 & sleep 3742"], 1)
    assert not [c for c in _commands(list(marked(os.environ[MARKER]))) if c.startswith("sleep 374")]
