"""What `make fuzz` prints while it runs (issue 46 item 7): how far it got every few seconds
(it printed nothing for half a minute, then everything), and a default frame count that the
Makefile and docs/testers/fuzz.md state alike."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest

from modalcore_dev.bench import fuzz

ROOT = Path(__file__).resolve().parents[2]


def test_rule_the_campaign_says_how_far_it_got_while_it_runs(capsys: pytest.CaptureFixture[str]) -> None:
    sent = [0]

    async def run() -> None:
        printer = asyncio.create_task(fuzz.progress(lambda: (sent[0], sent[0] // 70), 110_000,
                                                    time.perf_counter(), every_s=0.02))
        for _ in range(5):
            sent[0] += 7_000
            await asyncio.sleep(0.03)
        printer.cancel()

    asyncio.run(run())
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) >= 3
    assert all(re.fullmatch(r"fuzz: [\d,]+ of 110,000 frames over [\d,]+ sockets in \d+ s \([\d,]+ frames/s\)",
                            line) for line in lines), lines
    assert lines[0] != lines[-1]  # it moves


def test_rule_the_default_frame_count_is_the_one_the_makefile_and_the_docs_state() -> None:
    makefile = re.search(r"^FUZZ_FRAMES\s*\?=\s*(\d+)$", (ROOT / "Makefile").read_text(), re.M)
    assert makefile is not None and int(makefile.group(1)) == fuzz.DEFAULT_FRAMES
    docs = (ROOT / "docs" / "testers" / "fuzz.md").read_text()
    assert f"until {fuzz.DEFAULT_FRAMES:,} frames were sent" in docs
    assert f"default {fuzz.DEFAULT_FRAMES:,}" in docs
