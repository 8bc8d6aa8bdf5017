"""What the parts of one Redis store share (redis.py): the client, the prefix of every key, and
the count of commands they sent (figures, and the tests that count round trips)."""

from __future__ import annotations

from redis.asyncio import Redis


class RedisLink:
    def __init__(self, client: Redis, prefix: str) -> None:
        self.redis = client
        self.prefix = prefix
        self.commands = 0

    def key(self, kind: str, name: str) -> str:
        """`{prefix}{kind}:{name}` (redis.py lists the kinds)."""
        return f"{self.prefix}{kind}:{name}"
