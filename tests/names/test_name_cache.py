"""The name cache (behaviour.md §9: ENS 5 min): pure, immutable, keyed on the time passed in."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from modalcore.services.backend.name_cache import ENS_TTL_MS, TimedCache, address_key, name_key


def test_an_entry_lives_exactly_5_minutes() -> None:
    assert ENS_TTL_MS == 300_000
    cache: TimedCache[str | None] = TimedCache[str | None]().put("k", "alice.eth", 10_000)
    assert cache.get("k", 10_000).value == "alice.eth"  # type: ignore[union-attr]
    assert cache.get("k", 10_000 + ENS_TTL_MS - 1) is not None
    assert cache.get("k", 10_000 + ENS_TTL_MS) is None
    assert cache.get("k", 9_999) is None  # a time before the entry is not trusted


def test_a_miss_is_cached_as_none() -> None:
    cache: TimedCache[str | None] = TimedCache[str | None]().put("k", None, 0)
    hit = cache.get("k", 1)
    assert hit is not None and hit.value is None
    assert TimedCache[str]().get("k", 1) is None


def test_put_returns_a_new_cache_and_leaves_the_old_one_alone() -> None:
    empty: TimedCache[str] = TimedCache()
    one = empty.put("a", "x", 0)
    assert empty.get("a", 0) is None and one.get("a", 0) is not None
    two = one.put("a", "y", 5)
    assert one.get("a", 5).value == "x" and two.get("a", 5).value == "y"  # type: ignore[union-attr]


def test_expired_and_oldest_entries_are_dropped() -> None:
    cache: TimedCache[int] = TimedCache(ttl_ms=100, max_entries=2)
    cache = cache.put("old", 1, 0).put("b", 2, 150)
    assert set(cache.entries) == {"b"}  # "old" expired at 100
    cache = cache.put("c", 3, 160).put("d", 4, 170)
    assert set(cache.entries) == {"c", "d"}


@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(0, 10**6)), max_size=30))
def test_never_more_than_max_entries(puts: list[tuple[str, int]]) -> None:
    cache: TimedCache[int] = TimedCache(max_entries=3)
    now = 0
    for key, step in puts:
        now += step
        cache = cache.put(key, step, now)
        assert len(cache.entries) <= 3 and cache.get(key, now) is not None


def test_keys_ignore_case_and_separate_chains() -> None:
    assert name_key(1, "Alice.ETH") == name_key(1, "alice.eth") != name_key(2, "alice.eth")
    assert address_key(1, "0xABC") == address_key(1, "0xabc") != name_key(1, "0xabc")
