"""The load tool (`python -m modalcore_dev.bench.load`, issue 17) against real `serve` workers:
tiny sizes, the table it prints, and that its sessions were really served (no errors). The tool
runs in a process group of its own: past the bound, its workers are killed with it."""

from __future__ import annotations

import re
import sys

from modalcore_testing.leftovers import run_group

BOUND_S = 180.0  # a bound on a loaded machine, never asserted as a duration


def test_load_tool_prints_a_table_for_one_and_two_workers() -> None:
    result = run_group(
        [sys.executable, "-m", "modalcore_dev.bench.load", "--idle", "6", "--active", "4",
         "--rate", "2", "--seconds", "1", "--workers", "1", "2"], BOUND_S)
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()
            if re.match(r"^\s+[12]\s+(idle|active)", line)]
    assert [(row[0], row[1]) for row in rows] == [
        ("1", "idle"), ("1", "active"), ("2", "idle"), ("2", "active")]
    for line in result.stdout.splitlines():
        if re.match(r"^\s+[12]\s+(idle|active)", line):
            assert line.rstrip().endswith("errors 0"), line
    assert re.search(r"RSS per session -?[0-9.]+ KiB", result.stdout)
    # 4 sessions × 2/s × 1 s: every intent answered by its patch
    assert re.search(r"p50 [0-9.]+ ms, p99 [0-9.]+ ms, intents/s \d+", result.stdout)


def test_load_tool_on_two_workers_sharing_a_redis_counts_redis_commands_per_intent() -> None:
    result = run_group(
        [sys.executable, "-m", "modalcore_dev.bench.load", "--store", "redis", "--idle", "0",
         "--active", "4", "--rate", "2", "--seconds", "1", "--workers", "2"], BOUND_S)
    assert result.returncode == 0, result.stderr
    assert "Redis store" in result.stdout
    row = next(line for line in result.stdout.splitlines() if re.match(r"^\s+2\s+active", line))
    assert re.search(r"Redis commands/intent [1-9][0-9.]*, errors 0$", row.rstrip()), row


def test_load_tool_refuses_unbounded_sizes() -> None:
    result = run_group([sys.executable, "-m", "modalcore_dev.bench.load", "--idle", "1000000"], BOUND_S)
    assert result.returncode == 2
    assert "bounded" in result.stderr
