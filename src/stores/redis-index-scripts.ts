// The Lua of `redisStore`'s run index (`queryRuns`). Its keys all start with the store's prefix and are
// derived inside the scripts from it (`<prefix>idx:...`): like the store's other keys they assume one
// Redis (or one hash slot), not a cluster.
//
// Layout: `idx:sum:<id>` a hash of the run's summary (json, text, createdAt, durationMs, and the values it
// is filed under); `idx:by:<sort key>` a sorted set of every run by that sort value, and
// `idx:by:<sort key>:<status>` of the runs of one status (the status tabs sort without an intersection);
// `idx:status:<s>`, `idx:agent:<a>`, `idx:session:<s>`, `idx:tenant:<t>`, `idx:model:<m>` sorted sets by
// createdAt; `idx:counts` a hash of runs per status.

/** How many summaries a text search reads per page at most before answering a shorter page. */
export const TEXT_SCAN_BUDGET = 5_000;

// Lua functions shared by the scripts below: file a run's summary, and take it out again.
const INDEX_FUNCTIONS = `
local SORTS = {'createdAt', 'durationMs', 'tokens', 'costUsd'}
local function unindex(p, id)
  local s = p .. 'idx:sum:' .. id
  local old = redis.call('HMGET', s, 'status', 'agent', 'session', 'tenant', 'model')
  if not old[1] then return 0 end
  redis.call('ZREM', p .. 'idx:status:' .. old[1], id)
  redis.call('ZREM', p .. 'idx:agent:' .. old[2], id)
  if old[3] ~= '' then redis.call('ZREM', p .. 'idx:session:' .. old[3], id) end
  if old[4] ~= '' then redis.call('ZREM', p .. 'idx:tenant:' .. old[4], id) end
  if old[5] ~= '' then redis.call('ZREM', p .. 'idx:model:' .. old[5], id) end
  for _, sort in ipairs(SORTS) do
    redis.call('ZREM', p .. 'idx:by:' .. sort, id)
    redis.call('ZREM', p .. 'idx:by:' .. sort .. ':' .. old[1], id)
  end
  redis.call('HINCRBY', p .. 'idx:counts', old[1], -1)
  redis.call('DEL', s)
  return 1
end
-- f: status, agent, session, tenant, model, createdAt, durationMs, tokens, cost, json, text, version
local function index(p, id, f)
  unindex(p, id)
  local c = f[6]
  redis.call('ZADD', p .. 'idx:status:' .. f[1], c, id)
  redis.call('ZADD', p .. 'idx:agent:' .. f[2], c, id)
  if f[3] ~= '' then redis.call('ZADD', p .. 'idx:session:' .. f[3], c, id) end
  if f[4] ~= '' then redis.call('ZADD', p .. 'idx:tenant:' .. f[4], c, id) end
  if f[5] ~= '' then redis.call('ZADD', p .. 'idx:model:' .. f[5], c, id) end
  redis.call('ZADD', p .. 'idx:by:createdAt', c, id)
  redis.call('ZADD', p .. 'idx:by:durationMs', f[7], id)
  redis.call('ZADD', p .. 'idx:by:tokens', f[8], id)
  redis.call('ZADD', p .. 'idx:by:costUsd', f[9], id)
  redis.call('ZADD', p .. 'idx:by:durationMs:' .. f[1], f[7], id)
  redis.call('ZADD', p .. 'idx:by:tokens:' .. f[1], f[8], id)
  redis.call('ZADD', p .. 'idx:by:costUsd:' .. f[1], f[9], id)
  redis.call('HINCRBY', p .. 'idx:counts', f[1], 1)
  redis.call('HSET', p .. 'idx:sum:' .. id, 'status', f[1], 'agent', f[2], 'session', f[3], 'tenant', f[4],
    'model', f[5], 'createdAt', c, 'durationMs', f[7], 'json', f[10], 'text', f[11], 'version', f[12])
end
-- Runs whose hash expired (their expiry passed and the hash is gone) leave the index and the list sets.
-- KEYS of the caller: 2..7 the list's sets, 7 the expiry zset.
local function dropExpired(p, expiry, listSets, now, count)
  local ids = redis.call('ZRANGEBYSCORE', expiry, '-inf', now, 'LIMIT', 0, count)
  for _, id in ipairs(ids) do
    if redis.call('EXISTS', p .. 'run:' .. id) == 0 then
      unindex(p, id)
      for _, key in ipairs(listSets) do redis.call('ZREM', key, id) end
    end
  end
  return #ids
end
`;

/** The shared functions, for the run-writing scripts of `redis-scripts.ts`. */
export const REDIS_INDEX_FUNCTIONS = INDEX_FUNCTIONS;

/**
 * Files a run written before the index existed, unless it changed since it was read (its version moved:
 * that write filed it). KEYS: the run hash. ARGV: prefix, id, version, then the 11 fields of `index`.
 */
export const INDEX_OLD_RUN = `${INDEX_FUNCTIONS}
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[3] then return 0 end
if redis.call('HGET', ARGV[1] .. 'idx:sum:' .. ARGV[2], 'version') == ARGV[3] then return 0 end
index(ARGV[1], ARGV[2], {ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12],
  ARGV[13], ARGV[14], ARGV[3]})
return 1
`;

/**
 * Drops expired runs from the index before a query (lazily: Redis expires a finished run's hash by itself,
 * the index learns it here or at the next finishing write). KEYS: the list's index zset, four status
 * zsets, expiry zset. ARGV: prefix, now.
 */
export const DROP_EXPIRED = `${INDEX_FUNCTIONS}
local sets = {KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]}
local dropped = dropExpired(ARGV[1], KEYS[6], sets, ARGV[2], 1000)
return dropped
`;

/**
 * One page of the index. ARGV: prefix, sort key, '1' for descending, cursor sort value ('' for none),
 * cursor id, how many (the page's limit + 1), createdFrom (''), createdTo (''), text ('' for none), the
 * number of statuses n, the n statuses, then filter sets (`agent:<name>`, `session:<id>`, ...).
 * Answers { flat [id, sort value, json, createdAt, durationMs] per run, counts (flat hash), the last id
 * and sort value a text search read when its budget ran out (else empty) }.
 */
export const QUERY_RUNS = `
local p, sort, desc, ck, cid = ARGV[1], ARGV[2], ARGV[3] == '1', ARGV[4], ARGV[5]
local want, from, to, text = tonumber(ARGV[6]), ARGV[7], ARGV[8], ARGV[9]
local n = tonumber(ARGV[10])
local tmp = p .. 'idx:tmp:'
local temps = {}
-- The runs of the asked statuses by the sort value: one set per status, or their union.
local function sorted(status)
  if sort == 'createdAt' then return p .. 'idx:status:' .. status end
  return p .. 'idx:by:' .. sort .. ':' .. status
end
local source = p .. 'idx:by:' .. sort
if n == 1 then source = sorted(ARGV[11]) end
if n > 1 then
  local keys = {}
  for i = 1, n do keys[i] = sorted(ARGV[10 + i]) end
  redis.call('ZUNIONSTORE', tmp .. 's', n, unpack(keys))
  temps[#temps + 1] = tmp .. 's'
  source = tmp .. 's'
end
-- The other filters' sets (scored by createdAt) keep only their runs, the sort value kept as the score.
local inter = {}
for i = 11 + n, #ARGV do inter[#inter + 1] = p .. 'idx:' .. ARGV[i] end
if (from ~= '' or to ~= '') and sort ~= 'createdAt' then
  redis.call('ZRANGESTORE', tmp .. 't', p .. 'idx:by:createdAt', from ~= '' and from or '-inf',
    to ~= '' and ('(' .. to) or '+inf', 'BYSCORE')
  temps[#temps + 1] = tmp .. 't'
  inter[#inter + 1] = tmp .. 't'
end
if sort == 'createdAt' and n == 0 and #inter == 1 then
  -- One filter, newest or oldest first: the filter's set is already scored by createdAt.
  source = inter[1]
elseif #inter > 0 then
  local args = {tmp .. 'r', #inter + 1, source}
  for _, key in ipairs(inter) do args[#args + 1] = key end
  args[#args + 1] = 'WEIGHTS'
  args[#args + 1] = 1
  for _ = 1, #inter do args[#args + 1] = 0 end
  redis.call('ZINTERSTORE', unpack(args))
  temps[#temps + 1] = tmp .. 'r'
  source = tmp .. 'r'
end
-- The window of ranks [lo, hi) in the page's order; createdAt bounds are score bounds of the source.
local lo, hi = 0, redis.call('ZCARD', source)
if sort == 'createdAt' then
  if desc then
    if to ~= '' then lo = redis.call('ZCOUNT', source, to, '+inf') end
    if from ~= '' then hi = redis.call('ZCOUNT', source, from, '+inf') end
  else
    if from ~= '' then lo = redis.call('ZCOUNT', source, '-inf', '(' .. from) end
    if to ~= '' then hi = redis.call('ZCOUNT', source, '-inf', '(' .. to) end
  end
end
if ck ~= '' then
  local start
  local score = redis.call('ZSCORE', source, cid)
  if score and tonumber(score) == tonumber(ck) then
    start = (desc and redis.call('ZREVRANK', source, cid) or redis.call('ZRANK', source, cid)) + 1
  else
    -- The cursor's run moved or left: count what comes before its place, its ties one by one.
    if desc then
      start = redis.call('ZCOUNT', source, '(' .. ck, '+inf')
    else
      start = redis.call('ZCOUNT', source, '-inf', '(' .. ck)
    end
    local ties = desc and redis.call('ZREVRANGEBYSCORE', source, ck, ck) or redis.call('ZRANGEBYSCORE', source, ck, ck)
    for _, member in ipairs(ties) do
      if (desc and member > cid) or (not desc and member < cid) then start = start + 1 else break end
    end
  end
  if start > lo then lo = start end
end
local function range(first, last)
  if desc then return redis.call('ZRANGE', source, first, last, 'REV', 'WITHSCORES') end
  return redis.call('ZRANGE', source, first, last, 'WITHSCORES')
end
local page = {}
local scanned = {}
-- Reads the window in order, a batch at a time, keeping the runs that still exist (an expired run not yet
-- dropped is passed over) and match the text, until the page is full; a text search stops after its budget.
local budget = text == '' and -1 or ${TEXT_SCAN_BUDGET}
local at = lo
while at < hi and #page < want * 5 and budget ~= 0 do
  local entries = range(at, math.min(at + (text == '' and want or 200), hi) - 1)
  for i = 1, #entries, 2 do
    local id = entries[i]
    local key = p .. 'idx:sum:' .. id
    local s = text == '' and redis.call('HMGET', key, 'json', 'createdAt', 'durationMs')
      or redis.call('HMGET', key, 'json', 'createdAt', 'durationMs', 'text')
    at = at + 1
    budget = budget - 1
    if s[1] and redis.call('EXISTS', p .. 'run:' .. id) == 1 and (text == '' or string.find(s[4], text, 1, true)) then
      page[#page + 1] = id
      page[#page + 1] = entries[i + 1]
      page[#page + 1] = s[1]
      page[#page + 1] = s[2]
      page[#page + 1] = s[3]
    end
    if #page >= want * 5 then break end
    if budget == 0 then
      if at < hi then scanned = {id, entries[i + 1]} end
      break
    end
  end
end
for _, key in ipairs(temps) do redis.call('DEL', key) end
return {page, redis.call('HGETALL', p .. 'idx:counts'), scanned}
`;
