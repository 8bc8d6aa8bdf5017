"""The Redis store, when the `modalcore[redis]` extra is installed: the engine runs without it
(memory and SQLite stores); a config that asks for Redis without it is refused (`REDIS_MISSING`)."""

from __future__ import annotations

REDIS_MISSING = "the redis store needs the redis extra: pip install 'modalcore[redis]'"

try:
    from redis.exceptions import RedisError

    from .redis import RedisStore
    from .redis_sentinel import redis_db, sentinel_store
except ModuleNotFoundError as missing:
    if missing.name != "redis":
        raise
    RedisError = OSError  # type: ignore[misc,assignment]  # no Redis: none of its failures
    RedisStore = None  # type: ignore[misc,assignment]
    redis_db = sentinel_store = None  # type: ignore[assignment]

__all__ = ["REDIS_MISSING", "RedisError", "RedisStore", "redis_db", "sentinel_store"]
