"""The Lua scripts the Redis store runs (redis.py): each one request, atomic inside Redis."""

# KEYS: lease, touched, data, the blobs' sorted set, then each blob's key; ARGV: owner, session
# id, now ms, data, then each blob's digest and bytes. Blobs are written even when the lease is
# refused: they are shared, and another session may already count on them.
SAVE = """
for i = 5, #KEYS do
  redis.call('SET', KEYS[i], ARGV[2 * i - 4], 'NX')
  redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2 * i - 5])
end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
if not holder then redis.call('SET', KEYS[1], ARGV[1]) end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
redis.call('SET', KEYS[3], ARGV[4])
return 1
"""

# KEYS: the blobs' sorted set; ARGV: cutoff (ms), the blob key prefix. Atomic, so a blob written
# again meanwhile (its time renewed) is never dropped on its old time.
EXPIRE_BLOBS = """
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
for _, digest in ipairs(old) do
  redis.call('DEL', ARGV[2] .. digest)
  redis.call('ZREM', KEYS[1], digest)
end
return #old
"""

# KEYS: the counts, then each event id's key; ARGV: seconds an id is kept, then each event's
# count field. One request for a batch of events: an id seen before is not counted again.
EVENTS = """
local counted = 0
for i = 2, #KEYS do
  if redis.call('SET', KEYS[i], '1', 'NX', 'EX', ARGV[1]) then
    redis.call('HINCRBY', KEYS[1], ARGV[i], 1)
    counted = counted + 1
  end
end
return counted
"""
# KEYS: the session's audit log. Its newest entry: entries are numbered 1..n without gaps, so
# it is the one at HLEN (one request, not the whole log).
AUDIT_HEAD = """
local n = redis.call('HLEN', KEYS[1])
if n == 0 then return false end
return {n, redis.call('HGET', KEYS[1], tostring(n))}
"""
