import type { Redis, RedisOptions } from 'ioredis';
import { loadOptional } from '../core/load-module.js';
import { evalScript } from '../stores/eval-script.js';
import {
  emptyStatsRow,
  LIMITS_BACKEND_TIMEOUT_MS,
  type LimitStatField,
  type LimitStatsRow,
  type LimitsBackend,
} from './limits-backend.js';

// The token-bucket step of `takeFromBuckets` in one script, so every worker's take is atomic and timed by
// the one Redis clock. KEYS: the buckets; ARGV: cost, then per bucket its two rates, two capacities and TTL.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cost = tonumber(ARGV[1])
local wait = 0
local next = {}
for i, key in ipairs(KEYS) do
  local o = 1 + (i - 1) * 5
  local rRate, rCap = tonumber(ARGV[o + 1]), tonumber(ARGV[o + 2])
  local kRate, kCap = tonumber(ARGV[o + 3]), tonumber(ARGV[o + 4])
  local v = redis.call('HMGET', key, 'r', 'k', 'ts', 'p')
  local ts = tonumber(v[3]) or now
  local elapsed = math.max(0, now - ts)
  local r = math.min(rCap, (tonumber(v[1]) or 1) + elapsed * rRate)
  local k = math.min(kCap, (tonumber(v[2]) or kCap) + elapsed * kRate)
  local p = tonumber(v[4]) or 0
  if p > now then wait = math.max(wait, p - now) end
  if rRate >= 0 and r < 1 then wait = math.max(wait, (1 - r) / rRate) end
  local take = math.min(cost, kCap)
  if kRate >= 0 and k < take then wait = math.max(wait, (take - k) / kRate) end
  if rRate >= 0 then r = r - 1 end
  if kRate >= 0 then k = k - take end
  next[i] = { r, k, ARGV[o + 5] }
end
if wait > 0 then return math.ceil(wait) end
for i, key in ipairs(KEYS) do
  redis.call('HSET', key, 'r', tostring(next[i][1]), 'k', tostring(next[i][2]), 'ts', now)
  redis.call('PEXPIRE', key, next[i][3])
end
return 0
`;

// ARGV: ms; the pause ends at the later of its current end and now + ms.
const PAUSE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local until_ = now + tonumber(ARGV[1])
local p = tonumber(redis.call('HGET', KEYS[1], 'p')) or 0
if until_ > p then redis.call('HSET', KEYS[1], 'p', until_) end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) + tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]))
end
return 0
`;

const LEAVE = `
local n = tonumber(redis.call('HGET', KEYS[1], ARGV[1])) or 0
if n > 0 then redis.call('HINCRBY', KEYS[1], ARGV[1], -1) end
return 0
`;

/** Limits on Redis: buckets as hashes updated by Lua scripts under `svc-agents:<queue>:limits:`. */
export function redisLimitsBackend(options: RedisOptions, prefix: string, statsTtlMs: number): LimitsBackend {
  let client: Promise<Redis> | undefined;
  const redis = () => {
    client ??= loadOptional('ioredis', () => import('ioredis'), 'svc-agents/queue limits').then(
      ({ Redis }) => {
        // Every command is bounded, also on a half-open connection that never answers (no reset to notice).
        const connection = new Redis({
          ...options,
          maxRetriesPerRequest: 2,
          commandTimeout: LIMITS_BACKEND_TIMEOUT_MS,
          connectTimeout: LIMITS_BACKEND_TIMEOUT_MS,
          keepAlive: 1_000,
        });
        // A dropped connection is a failed call the limiter answers for; it must not crash the process.
        connection.on('error', () => undefined);
        return connection;
      },
    );
    return client;
  };
  const statsKey = (window: number) => `${prefix}stats:${window}`;
  const backlogKey = `${prefix}backlog`;
  return {
    async take(buckets, cost) {
      if (buckets.length === 0) return 0;
      const args = [String(cost)];
      for (const b of buckets) {
        args.push(...[b.requestRate, b.requestCapacity, b.tokenRate, b.tokenCapacity, b.ttlMs].map(String));
      }
      return Number(
        await evalScript(await redis(), TAKE, buckets.length, ...buckets.map((b) => b.key), ...args),
      );
    },
    async adjust(buckets, tokens) {
      const limited = buckets.filter((bucket) => bucket.tokenRate >= 0);
      if (limited.length === 0 || tokens === 0) return;
      const pipeline = (await redis()).pipeline();
      for (const bucket of limited) pipeline.hincrbyfloat(bucket.key, 'k', String(-tokens));
      await pipeline.exec();
    },
    async pause(bucket, ms) {
      await evalScript(await redis(), PAUSE, 1, bucket.key, String(Math.ceil(ms)), String(bucket.ttlMs));
    },
    async count(window, model, tenant, add) {
      const pipeline = (await redis()).pipeline();
      for (const [field, value] of Object.entries(add)) {
        if (value) pipeline.hincrby(statsKey(window), `${model}\t${tenant}\t${field}`, Math.round(value));
      }
      pipeline.pexpire(statsKey(window), statsTtlMs);
      await pipeline.exec();
    },
    async stats(window) {
      const fields = await (await redis()).hgetall(statsKey(window));
      const rows = new Map<string, LimitStatsRow>();
      for (const [name, value] of Object.entries(fields)) {
        const [model = '', tenant = '', field = ''] = name.split('\t');
        const key = `${model}\t${tenant}`;
        let row = rows.get(key);
        if (!row) {
          row = emptyStatsRow(model, tenant);
          rows.set(key, row);
        }
        if (field in row && field !== 'model' && field !== 'tenant')
          row[field as LimitStatField] = Number(value);
      }
      return [...rows.values()];
    },
    async enterBacklog(tenant) {
      return (await redis()).hincrby(backlogKey, tenant, 1);
    },
    async leaveBacklog(tenant) {
      await evalScript(await redis(), LEAVE, 1, backlogKey, tenant);
    },
    async close() {
      const opened = client;
      client = undefined;
      if (opened) await (await opened).quit().catch(() => undefined);
    },
  };
}
