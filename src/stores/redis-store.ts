import type { Redis, RedisOptions } from 'ioredis';
import type {
  AddItemsOptions,
  ListRunsOptions,
  RunRecord,
  RunRecordInput,
  Store,
} from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors/run-conflict-error.js';
import type { ChatMessage } from '../api/types/chat.js';
import { loadOptional, stampRecord } from './store-utils.js';

/** Options of `redisStore`: a URL or ioredis options (the store owns that client), or your own client. */
export interface RedisStoreOptions {
  /** `redis://host:port/db`. */
  url?: string;
  /** ioredis options, when not given a `url`. */
  options?: RedisOptions;
  /** An ioredis client you own (the store does not close it). */
  client?: Redis;
  /** Prefix of every key the store writes. @default 'svc-agents:' */
  prefix?: string;
}

// KEYS: run hash, index zset. ARGV: expected version ('' to create), json, createdAt, id. Returns the
// stored createdAt, or -1 on a version mismatch: the version is checked and bumped in one script, one round
// trip per checkpoint, no lost update.
const WRITE_RUN = `
local current = redis.call('HGET', KEYS[1], 'version')
local expected = ARGV[1]
if expected == '' then
  if current then return -1 end
  redis.call('HSET', KEYS[1], 'version', 1, 'createdAt', ARGV[3], 'json', ARGV[2])
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
  return tonumber(ARGV[3])
end
if not current or current ~= expected then return -1 end
redis.call('HSET', KEYS[1], 'version', tonumber(current) + 1, 'json', ARGV[2])
return tonumber(redis.call('HGET', KEYS[1], 'createdAt'))
`;

// KEYS: items list, keys set. ARGV: idempotency key ('' for none), items...
const ADD_ITEMS = `
if ARGV[1] ~= '' and redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
for i = 2, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
return 1
`;

// KEYS: run hash, session items list. ARGV: expected version, json, items... The run's write and its
// session append in one script: Redis runs it whole or, on a version mismatch (-1), not at all.
const COMMIT_RUN = `
local current = redis.call('HGET', KEYS[1], 'version')
if not current or current ~= ARGV[1] then return -1 end
redis.call('HSET', KEYS[1], 'version', tonumber(current) + 1, 'json', ARGV[2])
for i = 3, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
return tonumber(redis.call('HGET', KEYS[1], 'createdAt'))
`;

/** A store on Redis (ioredis, an optional peer dependency loaded on first use). */
export function redisStore(options: RedisStoreOptions = {}): Store {
  const prefix = options.prefix ?? 'svc-agents:';
  let clientPromise: Promise<Redis> | undefined;
  const ownsClient = options.client === undefined;
  const client = () => {
    clientPromise ??= options.client
      ? Promise.resolve(options.client)
      : loadOptional('ioredis', () => import('ioredis'), 'redisStore').then(({ Redis }) =>
          options.url ? new Redis(options.url, { lazyConnect: false }) : new Redis(options.options ?? {}),
        );
    return clientPromise;
  };
  const runKey = (id: string) => `${prefix}run:${id}`;
  const indexKey = `${prefix}runs`;
  const itemsKey = (id: string) => `${prefix}session:${id}`;
  const sessionKeysKey = (id: string) => `${prefix}session-keys:${id}`;

  // Answers the stored createdAt, or -1 when the expected version does not hold.
  const writeRun = async (record: RunRecord, expected: number | undefined): Promise<number> => {
    const redis = await client();
    const json = JSON.stringify(record);
    return (await redis.eval(
      WRITE_RUN,
      2,
      runKey(record.id),
      indexKey,
      expected === undefined ? '' : String(expected),
      json,
      String(record.createdAt),
      record.id,
    )) as number;
  };
  const readRun = async (id: string): Promise<RunRecord | undefined> => {
    const redis = await client();
    const [version, createdAt, json] = await redis.hmget(runKey(id), 'version', 'createdAt', 'json');
    if (!version || !json) return undefined;
    return { ...(JSON.parse(json) as RunRecord), version: Number(version), createdAt: Number(createdAt) };
  };

  return {
    async createRun(input: RunRecordInput) {
      const record = stampRecord(input, 1, Date.now());
      if ((await writeRun(record, undefined)) < 0) throw new RunConflictError({ runId: input.id });
      return record;
    },
    getRun: readRun,
    async updateRun(id, expectedVersion, input) {
      const record = stampRecord(input, expectedVersion + 1, 0);
      const createdAt = await writeRun(record, expectedVersion);
      if (createdAt < 0) throw new RunConflictError({ runId: id, expectedVersion });
      record.createdAt = createdAt;
      return record;
    },
    async commitRun(id, expectedVersion, input, { sessionId, items }) {
      const redis = await client();
      const record = stampRecord(input, expectedVersion + 1, 0);
      const createdAt = (await redis.eval(
        COMMIT_RUN,
        2,
        runKey(id),
        itemsKey(sessionId),
        String(expectedVersion),
        JSON.stringify(record),
        ...items.map((item) => JSON.stringify(item)),
      )) as number;
      if (createdAt < 0) throw new RunConflictError({ runId: id, expectedVersion });
      record.createdAt = createdAt;
      return record;
    },
    async listRuns({ status, limit = 100 }: ListRunsOptions = {}) {
      const redis = await client();
      const found: RunRecord[] = [];
      // Newest first, in pages, filtering by status on the way.
      for (let start = 0; found.length < limit; start += 200) {
        const ids = await redis.zrevrange(indexKey, start, start + 199);
        if (ids.length === 0) break;
        const records = await Promise.all(ids.map(readRun));
        for (const record of records) {
          if (record && (status === undefined || record.status === status)) found.push(record);
        }
      }
      return found.slice(0, limit);
    },
    async deleteRun(id) {
      const redis = await client();
      await redis.multi().del(runKey(id)).zrem(indexKey, id).exec();
    },
    async getItems(sessionId, limit) {
      const redis = await client();
      const items = await redis.lrange(itemsKey(sessionId), limit === undefined ? 0 : -limit, -1);
      return items.map((item) => JSON.parse(item) as ChatMessage);
    },
    async addItems(sessionId, items, { idempotencyKey }: AddItemsOptions = {}) {
      if (items.length === 0 && idempotencyKey === undefined) return;
      const redis = await client();
      await redis.eval(
        ADD_ITEMS,
        2,
        itemsKey(sessionId),
        sessionKeysKey(sessionId),
        idempotencyKey ?? '',
        ...items.map((item) => JSON.stringify(item)),
      );
    },
    async popItem(sessionId) {
      const redis = await client();
      const item = await redis.rpop(itemsKey(sessionId));
      return item === null ? undefined : (JSON.parse(item) as ChatMessage);
    },
    async clearSession(sessionId) {
      const redis = await client();
      await redis.del(itemsKey(sessionId), sessionKeysKey(sessionId));
    },
    async close() {
      if (ownsClient && clientPromise) await (await clientPromise).quit();
      clientPromise = undefined;
    },
  };
}
