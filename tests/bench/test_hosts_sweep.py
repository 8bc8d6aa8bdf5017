"""The hosts section's throughput sweep: the rate doubled until p99 passes the goal, then
narrowed between the last rate within it and the first past it (a doubling alone reported half
the machine's figure whenever one p99 landed just past the goal)."""

from __future__ import annotations

from collections.abc import Callable

from modalcore_dev.bench.hosts_bench import highest_within

DOUBLING = (0.5, 1.0, 2.0, 4.0, 8.0)


def _machine(limit: float, tried: list[float]) -> Callable[[float], tuple[bool, float]]:
    """A machine whose p99 stays within the goal up to `limit` intents/s per session."""
    def run_at(rate: float) -> tuple[bool, float]:
        tried.append(rate)
        return rate <= limit, rate
    return run_at


def test_rule_the_sweep_narrows_between_the_last_rate_within_and_the_first_past_it() -> None:
    tried: list[float] = []
    within, last = highest_within(DOUBLING, _machine(3.0, tried))
    assert tried[:4] == [0.5, 1.0, 2.0, 4.0] and len(tried) == 4 + 3
    assert within is not None and 2.0 < within <= 3.0 and within >= 3.0 / 1.09, tried
    assert last == tried[-1]


def test_rule_within_at_every_rate_is_the_top_rate_and_past_at_the_lowest_is_none() -> None:
    tried: list[float] = []
    assert highest_within(DOUBLING, _machine(100.0, tried)) == (8.0, 8.0)
    assert tried == list(DOUBLING)
    tried.clear()
    assert highest_within(DOUBLING, _machine(0.1, tried)) == (None, 0.5)
    assert tried == [0.5]
