"""The relay client's replay caches are bounded: oldest keys are forgotten first."""

from __future__ import annotations

from modalcore.walletconnect.backend.dedupe import RecentSet


def test_replays_are_detected_and_the_cache_stays_bounded() -> None:
    seen = RecentSet(3)
    assert [seen.add(k) for k in "abc"] == [True, True, True]
    assert seen.add("a") is False  # a replay (and refreshed)
    assert seen.add("d") is True and len(seen) == 3
    assert "b" not in seen and "a" in seen  # "b" was the oldest
