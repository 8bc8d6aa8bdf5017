"""The session store interface. Times are epoch milliseconds passed in by the caller (its clock)."""

from __future__ import annotations

from abc import ABC, abstractmethod

DEFAULT_TTL_MS = 24 * 3600 * 1000


class SessionStore(ABC):
    """Persistent session state by session id; a session idle for longer than `ttl_ms` is gone."""

    def __init__(self, ttl_ms: int = DEFAULT_TTL_MS) -> None:
        if ttl_ms <= 0:
            raise ValueError("ttl_ms must be positive")
        self.ttl_ms = ttl_ms

    @abstractmethod
    async def load(self, session_id: str, now_ms: int) -> bytes | None:
        """The saved bytes, or None when there are none or they expired."""

    @abstractmethod
    async def save(self, session_id: str, data: bytes, now_ms: int) -> None:
        """Write the bytes and mark the session used at `now_ms`."""

    @abstractmethod
    async def delete(self, session_id: str) -> None: ...

    @abstractmethod
    async def touch(self, session_id: str, now_ms: int) -> None:
        """Mark the session used at `now_ms` without rewriting it."""

    @abstractmethod
    async def expire(self, now_ms: int) -> int:
        """Drop every session idle for longer than the TTL; how many were dropped."""

    @abstractmethod
    async def count(self) -> int: ...

    async def close(self) -> None:
        return None

    def _expired(self, touched_ms: int, now_ms: int) -> bool:
        return now_ms - touched_ms > self.ttl_ms
