"""Percentiles and printing."""

from __future__ import annotations

import statistics


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


def line(name: str, value: str, goal: str = "") -> str:
    suffix = f"   (goal {goal})" if goal else ""
    return f"  {name:<52} {value}{suffix}"
