// The Lua scripts of `redisStore`: each runs atomically on the server, in one round trip.

import { REDIS_INDEX_FUNCTIONS } from './redis-index-scripts.js';

// How many ids of expired runs one finishing write removes from the sorted sets.
const EXPIRED_PER_WRITE = 50;

/**
 * Creates or updates a run, version-checked, keeping the sorted sets and the expiry in step.
 * KEYS: run hash, index zset, the new status's zset, the other three status zsets, expiry zset.
 * ARGV: expected version ('' to create), json, createdAt, id, status, writeId, ttl ms ('' for none), now,
 * then the run's summary for the index (`queryRuns`): prefix, updatedAt, agent, session, tenant, model,
 * tokens, cost, summary json, search text ('' where absent).
 * With items after those (ARGV[19]...), they are appended to the session list KEYS[8] in the same step, only
 * when the write applies (`commitRun`: a run's record and its session append both happen or neither does).
 * Returns the stored createdAt, or -1 when the expected version does not hold. The version is checked and
 * bumped in one script, one round trip per checkpoint, no lost update. A write re-sent after its reply was
 * lost finds its own write id at the next version and answers as if it had just been applied. A finished
 * run's hash expires by itself; its id leaves the sorted sets through the expiry zset, a few per finishing
 * write, so the sets do not grow with every run ever made. The run's summary is filed in the same step.
 */
export const WRITE_RUN = `${REDIS_INDEX_FUNCTIONS}
local current = redis.call('HGET', KEYS[1], 'version')
local expected = ARGV[1]
local next = expected == '' and 1 or tonumber(expected) + 1
if current and tonumber(current) == next and redis.call('HGET', KEYS[1], 'writeId') == ARGV[6] then
  return tonumber(redis.call('HGET', KEYS[1], 'createdAt'))
end
local createdAt = ARGV[3]
if expected == '' then
  if current or redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
else
  if not current or current ~= expected then return -1 end
  createdAt = redis.call('HGET', KEYS[1], 'createdAt')
end
redis.call('HSET', KEYS[1], 'version', next, 'createdAt', createdAt, 'json', ARGV[2], 'status', ARGV[5], 'writeId', ARGV[6])
for i = 19, #ARGV do redis.call('RPUSH', KEYS[8], ARGV[i]) end
local duration = math.max(0, tonumber(ARGV[10]) - tonumber(createdAt))
index(ARGV[9], ARGV[4], {ARGV[5], ARGV[11], ARGV[12], ARGV[13], ARGV[14], createdAt, duration, ARGV[15], ARGV[16],
  ARGV[17], ARGV[18], next})
redis.call('ZADD', KEYS[2], createdAt, ARGV[4])
redis.call('ZADD', KEYS[3], createdAt, ARGV[4])
for i = 4, 6 do redis.call('ZREM', KEYS[i], ARGV[4]) end
if ARGV[7] == '' then
  redis.call('PERSIST', KEYS[1])
  redis.call('ZREM', KEYS[7], ARGV[4])
  return tonumber(createdAt)
end
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[7], tonumber(ARGV[8]) + tonumber(ARGV[7]), ARGV[4])
local expired = redis.call('ZRANGEBYSCORE', KEYS[7], '-inf', ARGV[8], 'LIMIT', 0, ${EXPIRED_PER_WRITE})
for _, id in ipairs(expired) do
  for i = 2, 7 do redis.call('ZREM', KEYS[i], id) end
  -- Its summary too, unless the run is still there (the clocks of Redis and the writer differ a little).
  if redis.call('EXISTS', ARGV[9] .. 'run:' .. id) == 0 then unindex(ARGV[9], id) end
end
return tonumber(createdAt)
`;

/**
 * Removes one finished run and its ids from the sorted sets; a run resumed meanwhile (no longer finished)
 * only leaves the expiry zset. KEYS: run hash, index zset, the four status zsets, expiry zset. ARGV: id,
 * prefix (its summary leaves the run index too).
 */
export const PRUNE_RUN = `${REDIS_INDEX_FUNCTIONS}
local status = redis.call('HGET', KEYS[1], 'status')
if status and status ~= 'completed' and status ~= 'failed' then
  redis.call('ZREM', KEYS[7], ARGV[1])
  return 0
end
local existed = redis.call('DEL', KEYS[1])
for i = 2, 7 do redis.call('ZREM', KEYS[i], ARGV[1]) end
unindex(ARGV[2], ARGV[1])
return existed
`;

/** Removes a run, its ids from the sorted sets and its summary. KEYS and ARGV: as `PRUNE_RUN`. */
export const DELETE_RUN = `${REDIS_INDEX_FUNCTIONS}
redis.call('DEL', KEYS[1])
for i = 2, 7 do redis.call('ZREM', KEYS[i], ARGV[1]) end
unindex(ARGV[2], ARGV[1])
return 1
`;

/**
 * Appends items to a session, once per idempotency key.
 * KEYS: items list, keys set. ARGV: idempotency key ('' for none), items...
 */
export const ADD_ITEMS = `
if ARGV[1] ~= '' and redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
for i = 2, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
return 1
`;

/**
 * Appends a run's events with ids from ARGV[1], skipping those already stored (a retried append), and
 * refreshes the log's expiry. KEYS: the run's event list. ARGV: firstId, ttl ms ('' for none), events...
 * Returns the list's length before the append, or -1 - length when firstId is past it (a gap: nothing
 * is written). Checking the length and pushing in one script keeps two writers from interleaving.
 */
export const APPEND_RUN_EVENTS = `
local length = redis.call('LLEN', KEYS[1])
local first = tonumber(ARGV[1])
if first > length then return -1 - length end
for i = 3 + length - first, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
if ARGV[2] ~= '' and redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return length
`;

/**
 * `APPEND_RUN_EVENTS`, then (when the append was not refused) PUBLISH of its signal, in one call. KEYS:
 * the log. ARGV: first id, ttl ms ('' for none), the signal's Redis channel, its message, then the events.
 */
export const APPEND_RUN_EVENTS_AND_PUBLISH = `
local length = redis.call('LLEN', KEYS[1])
local first = tonumber(ARGV[1])
if first > length then return -1 - length end
for i = 5 + length - first, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
if ARGV[2] ~= '' and redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return length
`;

/**
 * Compare-and-set of a shared value, a hash {version, value}: writes only when the stored version (0
 * when absent or expired) is ARGV[1]. KEYS: the value's hash. ARGV: expected version, '1' to delete
 * (else '0'), value, ttl ms ('' for none: a write without ttl does not expire). Returns 1 when written.
 */
export const SET_VALUE_IF = `
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current ~= tonumber(ARGV[1]) then return 0 end
if ARGV[2] == '1' then
  redis.call('DEL', KEYS[1])
  return 1
end
redis.call('HSET', KEYS[1], 'version', current + 1, 'value', ARGV[3])
if ARGV[4] == '' then redis.call('PERSIST', KEYS[1]) else redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return 1
`;
