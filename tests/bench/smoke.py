"""Running one bench section at its smoke sizes and checking what it printed: at least one figure,
and every number a figure says it measured there and positive (never how fast: tests assert no
times). A section that cannot run here (a program it needs is missing) is skipped, saying why."""

from __future__ import annotations

import pytest

from modalcore_dev.bench.parts import MissingPart, Parts
from modalcore_dev.bench.sections import SECTIONS
from modalcore_dev.bench.stats import Figure, Skipped


def run_smoke(name: str, parts: Parts) -> list[Figure]:
    try:
        lines = SECTIONS[name](parts)
    except MissingPart as absent:
        pytest.skip(f"{name}: {absent}")
    figures = [text for text in lines if isinstance(text, Figure)]
    measured = [figure for figure in figures if figure.measured]
    assert measured, f"{name} measured nothing: {[str(text) for text in lines]}"
    wrong = [str(figure) for figure in measured if not figure.positive()]
    assert not wrong, f"{name} printed figures that are not positive: {wrong}"
    unmeasured = [str(text) for text in lines if isinstance(text, Skipped)]
    if unmeasured:
        pytest.skip(f"{name} ran, but not all of it: {unmeasured}")
    return figures
