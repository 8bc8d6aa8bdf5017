"""Redis behind Sentinel: the store asks the sentinels for the primary and follows a failover.

redis-py's Sentinel client finds the primary of a named service, drops connections to a primary
that stopped being it, and reconnects to the one the sentinels promoted. Its pool refuses a call
past its size at once; the store's sessions instead wait their turn for a connection (redis.py's
`from_url`), so the pool here is both: Sentinel's way of finding the address, the blocking
pool's bounded wait. Both classes are redis-py's public API, and `master_for` takes the pool
class as a documented argument.

While the sentinels elect a new primary (a few seconds: `down-after-milliseconds` plus the
election), commands fail with connection errors; the store's callers already keep what failed
and retry it (runtime/saves.py), so a failover is a short store outage. What Redis replicates
asynchronously can still be lost with the old primary: `replicas` (config `[store] replicas`)
makes a save count as landed only once that many replicas have it (WAIT), see redis.py.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from .base import DEFAULT_TTL_MS
from .sentinel_addresses import parse_sentinels
from .redis import (CONNECT_TIMEOUT_S, HEALTH_CHECK_S, MAX_CONNECTIONS, POOL_WAIT_S, SOCKET_TIMEOUT_S,
                    RedisStore)

SENTINEL_TIMEOUT_S = 1.0  # one sentinel unanswered this long: the next one is asked


class BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """Connections to the service's current primary (SentinelConnectionPool), at most
    `max_connections`, a caller waiting up to `timeout` for a free one (BlockingConnectionPool)."""


def redis_db(url: str) -> int:
    """The database number a `redis://host:port/N` URL names (0 when it names none)."""
    path = urlsplit(url).path.strip("/")
    return int(path) if path.isdigit() else 0


def sentinel_client(addresses: list[str], service: str, *, db: int = 0) -> Redis:
    """A client of `service`'s primary as the sentinels at `addresses` name it."""
    sentinel = Sentinel(parse_sentinels(addresses),
                        sentinel_kwargs={"socket_timeout": SENTINEL_TIMEOUT_S,
                                         "socket_connect_timeout": SENTINEL_TIMEOUT_S})
    client: Redis = sentinel.master_for(
        service, connection_pool_class=BlockingSentinelPool, db=db,
        max_connections=MAX_CONNECTIONS, timeout=POOL_WAIT_S,
        retry=Retry(NoBackoff(), 1, (RedisConnectionError,)),
        health_check_interval=HEALTH_CHECK_S, socket_timeout=SOCKET_TIMEOUT_S,
        socket_connect_timeout=CONNECT_TIMEOUT_S)
    return client


def sentinel_store(addresses: list[str], service: str, *, ttl_ms: int = DEFAULT_TTL_MS,
                   prefix: str = "modalcore:", db: int = 0, replicas: int = 0) -> RedisStore:
    """The session store on the primary the sentinels name (see the module's docstring)."""
    return RedisStore(sentinel_client(addresses, service, db=db), ttl_ms, prefix, replicas=replicas)
