"""Notes in Redis (issue 42, store/notes.py): every engine process of every host sharing the
Redis sees them. `{prefix}n:{kind}:{key}` holds the bytes (SET PX: Redis's clock drops it), and
`{prefix}nz:{kind}` a sorted set key -> when noted (the caller's clock) that bounds a kind to
`most` notes (the oldest dropped) and drops those past their time by the caller's clock. Noting
is one EVALSHA; taking is one EVALSHA (GET, DEL and ZREM at once: of two takers one gets it)."""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis

# KEYS: the note, the kind's sorted set; ARGV: bytes, ttl ms, now ms, key, most, note key prefix
_NOTE = """
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. (tonumber(ARGV[3]) - tonumber(ARGV[2])))
for _, key in ipairs(old) do
  redis.call('DEL', ARGV[6] .. key)
  redis.call('ZREM', KEYS[2], key)
end
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if over > 0 then
  local oldest = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #oldest, 2 do redis.call('DEL', ARGV[6] .. oldest[i]) end
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
"""
# KEYS: the note, the kind's sorted set; ARGV: key. (The caller checks the time it noted
# inside the bytes, as the memory store's `until`: a fake clock means the same here.)
_TAKE = """
local data = redis.call('GET', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return data
"""


class RedisNotes:
    """`SessionStore.note`/`noted`/`take_note` for RedisStore."""

    _redis: Redis
    _prefix: str
    _note_script: Any = None
    _take_script: Any = None

    async def note(self, kind: str, key: str, data: bytes, now_ms: int, ttl_ms: int, most: int) -> None:
        if self._note_script is None:
            self._note_script = self._redis.register_script(_NOTE)
        prefix = f"{self._prefix}n:{kind}:"
        await self._note_script(keys=[prefix + key, f"{self._prefix}nz:{kind}"],
                                args=[data, max(1, ttl_ms), now_ms, key, most, prefix])

    async def noted(self, kind: str, key: str, now_ms: int) -> bytes | None:
        data = await self._redis.get(f"{self._prefix}n:{kind}:{key}")
        return data if isinstance(data, bytes) else None

    async def take_note(self, kind: str, key: str, now_ms: int) -> bytes | None:
        if self._take_script is None:
            self._take_script = self._redis.register_script(_TAKE)
        data = await self._take_script(keys=[f"{self._prefix}n:{kind}:{key}", f"{self._prefix}nz:{kind}"],
                                       args=[key])
        return data if isinstance(data, bytes) else None
