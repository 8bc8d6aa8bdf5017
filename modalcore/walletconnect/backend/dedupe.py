"""A bounded set of recently seen keys (oldest forgotten first)."""

from __future__ import annotations

from collections import OrderedDict


class RecentSet:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._keys: OrderedDict[str, None] = OrderedDict()

    def add(self, key: str) -> bool:
        """Remember `key`; False if it was already there (a replay)."""
        if key in self._keys:
            self._keys.move_to_end(key)
            return False
        self._keys[key] = None
        if len(self._keys) > self.limit:
            self._keys.popitem(last=False)
        return True

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self._keys)
