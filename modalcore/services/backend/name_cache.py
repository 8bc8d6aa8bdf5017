"""A pure, immutable cache for name lookups, keyed on time passed in (no clock reads): behaviour.md §9
caches ENS (name → address, address → name) for 5 minutes. Misses are cached too (an address
without a name is asked again only after the lifetime). `put` returns a new cache, so it can
live in the engine's model."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Generic, TypeVar

ENS_TTL_MS = 5 * 60 * 1000  # behaviour.md §9: ENS 5 min
MAX_ENTRIES = 1024

V = TypeVar("V")


@dataclass(frozen=True)
class Hit(Generic[V]):
    value: V


@dataclass(frozen=True)
class TimedCache(Generic[V]):
    ttl_ms: int = ENS_TTL_MS
    max_entries: int = MAX_ENTRIES
    entries: MappingProxyType[str, tuple[int, V]] = field(
        default_factory=lambda: MappingProxyType({}))

    def get(self, key: str, now_ms: int) -> Hit[V] | None:
        """The cached value, or None when absent or older than the lifetime."""
        entry = self.entries.get(key)
        if entry is None or now_ms - entry[0] >= self.ttl_ms or now_ms < entry[0]:
            return None
        return Hit(entry[1])

    def put(self, key: str, value: V, now_ms: int) -> TimedCache[V]:
        """A new cache with `key` stored at `now_ms`; expired entries are dropped, and the
        oldest ones when it would hold more than max_entries."""
        live = {k: e for k, e in self.entries.items()
                if k != key and 0 <= now_ms - e[0] < self.ttl_ms}
        live[key] = (now_ms, value)
        if len(live) > self.max_entries:
            keep = sorted(live.items(), key=lambda item: item[1][0])[-self.max_entries:]
            live = dict(keep)
        return TimedCache(self.ttl_ms, self.max_entries, MappingProxyType(live))


def name_key(chain_id: int, name: str) -> str:
    return f"name:{chain_id}:{name.lower()}"


def address_key(chain_id: int, address: str) -> str:
    return f"address:{chain_id}:{address.lower()}"
