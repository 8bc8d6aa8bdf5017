"""Percentiles and printing: a section's lines are text (titles, notes) and `Figure`s, each a
measured line printed beside its goal that keeps the numbers it shows (the smoke test checks they
are there and positive)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(samples: list[float]) -> dict[str, float]:
    return {
        "p50": percentile(samples, 50),
        "p90": percentile(samples, 90),
        "p99": percentile(samples, 99),
        "mean": statistics.fmean(samples) if samples else float("nan"),
    }


@dataclass(frozen=True)
class Figure:
    """One line of figures: its name, the text printed, the goal printed beside it, and the
    measured numbers the text shows (durations, sizes, counts that cannot be zero)."""

    name: str
    text: str
    goal: str = ""
    measured: tuple[float, ...] = ()

    def __str__(self) -> str:
        suffix = f"   (goal {self.goal})" if self.goal else ""
        return f"  {self.name:<52} {self.text}{suffix}"

    def positive(self) -> bool:
        """Every measured number is a finite positive number (and there is one)."""
        return bool(self.measured) and all(math.isfinite(v) and v > 0 for v in self.measured)


@dataclass(frozen=True)
class Skipped:
    """A part of a section that could not run here (a missing program), and why."""

    name: str
    why: str

    def __str__(self) -> str:
        return f"  {self.name:<52} not measured: {self.why}"


Lines = list[str | Figure | Skipped]


def line(name: str, value: str, goal: str = "", measured: Iterable[float] = ()) -> Figure:
    return Figure(name, value, goal, tuple(float(v) for v in measured))
