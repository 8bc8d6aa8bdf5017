"""Marks and notes in Redis (issue 42, `RedisStore.notes`, store/notes.py): every engine process of
every host sharing the Redis sees them. A mark is `{prefix}m:{key}` (one `SET PX` or `EXISTS`:
Redis's own clock drops it). `{prefix}n:{kind}:{key}` holds the bytes (SET PX: Redis's clock drops it too),
and `{prefix}nz:{kind}` a sorted set key -> until when it lasts (the caller's clock, as the other
stores decide it, so a test's fake clock means the same here): it bounds a kind to `most` notes
(the first to end dropped first) and drops those past their time. Noting is one EVALSHA; reading
one; taking one (GET, DEL and ZREM at once: of two takers one gets it)."""

from __future__ import annotations

from .notes import Notes
from .redis_link import RedisLink

# KEYS: the note, the kind's sorted set; ARGV: bytes, ttl ms, until ms, key, most, note key prefix, now ms
_NOTE = """
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[7])
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
# KEYS: the note, the kind's sorted set; ARGV: key, now ms, take (1) or read (0)
_READ = """
local data = redis.call('GET', KEYS[1])
local til = redis.call('ZSCORE', KEYS[2], ARGV[1])
if ARGV[3] == '1' then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
end
if data and til and tonumber(til) >= tonumber(ARGV[2]) then return data end
return false
"""


class RedisNotes(Notes):
    def __init__(self, link: RedisLink) -> None:
        self._link = link
        self._note_script = link.redis.register_script(_NOTE)
        self._read_script = link.redis.register_script(_READ)

    async def mark(self, key: str, now_ms: int, ttl_ms: int) -> None:
        await self._link.redis.set(self._link.key("m", key), b"1", px=max(1, ttl_ms))

    async def marked(self, key: str, now_ms: int) -> bool:
        return bool(await self._link.redis.exists(self._link.key("m", key)))

    async def note(self, kind: str, key: str, data: bytes, now_ms: int, ttl_ms: int, most: int) -> None:
        prefix = self._link.key("n", f"{kind}:")
        await self._note_script(keys=[prefix + key, self._link.key("nz", kind)],
                                args=[data, max(1, ttl_ms), now_ms + ttl_ms, key, most, prefix, now_ms])

    async def noted(self, kind: str, key: str, now_ms: int) -> bytes | None:
        return await self._read(kind, key, now_ms, take=False)

    async def take(self, kind: str, key: str, now_ms: int) -> bytes | None:
        return await self._read(kind, key, now_ms, take=True)

    async def _read(self, kind: str, key: str, now_ms: int, take: bool) -> bytes | None:
        data = await self._read_script(keys=[self._link.key("n", f"{kind}:{key}"), self._link.key("nz", kind)],
                                       args=[key, now_ms, 1 if take else 0])
        return data if isinstance(data, bytes) else None
