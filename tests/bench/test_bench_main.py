"""Issue 45: `python -m modalcore_dev.bench` runs every section whatever the others did: a section
that fails says so in one line and the command exits 1 once all have run; one that cannot run
here says why in one line and does not fail the run."""

from __future__ import annotations

import pytest

from modalcore_dev.bench import __main__ as bench
from modalcore_dev.bench.parts import MissingPart, Parts
from modalcore_dev.bench.stats import Lines, line


def broken(parts: Parts) -> Lines:
    raise RuntimeError("no quote for 0.1: Network not supported for Swaps\nsecond line")


def missing(parts: Parts) -> Lines:
    raise MissingPart("valgrind is not installed (apt-get install valgrind)")


def fine(parts: Parts) -> Lines:
    return ["Fine:", line("a figure", "1 ms", "≤ 2 ms", [1.0])]


def test_rule_a_failed_section_is_one_line_the_next_still_runs_and_the_exit_is_1(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(bench, "SECTIONS", {"swap": broken, "after": fine})
    assert bench.main([]) == 1
    out = capsys.readouterr()
    failed = [text for text in out.out.splitlines() if text.startswith("[swap]")]
    assert len(failed) == 1 and "FAILED: RuntimeError: no quote for 0.1" in failed[0]
    assert "second line" not in out.out and "Traceback" not in out.out
    assert "  a figure" in out.out and "(goal ≤ 2 ms)" in out.out  # the section after it ran
    assert "swap" in out.err


def test_rule_a_section_missing_a_part_says_why_and_does_not_fail_the_run(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(bench, "SECTIONS", {"instructions": missing, "after": fine})
    assert bench.main([]) == 0
    out = capsys.readouterr().out
    assert "[instructions] not run: valgrind is not installed (apt-get install valgrind)" in out.splitlines()
    assert "  a figure" in out
