import type { Redis, RedisOptions } from 'ioredis';
import type { RunQuery } from '../agent/durable/run-query.js';
import type {
  AddItemsOptions,
  ListRunsOptions,
  PruneRunsOptions,
  RunRecord,
  RunRecordInput,
  RunStatus,
  SessionAppend,
  WriteRunOptions,
} from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors.js';
import type { ChatMessage } from '../api/types/chat.js';
import { defaults } from '../core/defaults.js';
import { loadOptional } from '../core/load-module.js';
import { evalScript } from './eval-script.js';
import { redisAddress, waitForRedis } from './first-connect.js';
import { type GuardedStore, guardStore } from './guard-store.js';
import { indexOldRedisRuns, queryRedisRuns, redisIndexArgs } from './redis-run-index.js';
import { ADD_ITEMS, DELETE_RUN, PRUNE_RUN, WRITE_RUN } from './redis-scripts.js';
import { createRedisSharedState } from './redis-shared-state.js';
import { createRedisSignals } from './redis-signals.js';
import { APPEND_AND_SIGNAL } from './run-events-signal.js';
import { normalizeRunQuery } from './run-query-input.js';
import { StoredRunInvalidError } from './store-errors.js';
import { resolveStoreOptions, type StoreOptions } from './store-options.js';
import { stampRecord, writeIdOf } from './store-utils.js';
import { checkStoredRun, isFinished, parseStoredRun, skippedRunWarning } from './stored-run.js';

/** Options of `redisStore`: a URL or ioredis options (the store owns that client), or your own client. */
export interface RedisStoreOptions extends StoreOptions {
  /** `redis://host:port/db`. */
  url?: string;
  /** ioredis options, when not given a `url` (they override the store's timeout and keepalive). */
  options?: RedisOptions;
  /** An ioredis client you own (the store does not close it; give it `commandTimeout` yourself). */
  client?: Redis;
  /** Prefix of every key the store writes. @default 'svc-agents:' */
  prefix?: string;
}

const STATUSES: readonly RunStatus[] = ['running', 'interrupted', 'completed', 'failed'];

// The layout version of the store's keys: 2 added a sorted set of run ids per status, expiry of finished
// runs and a sorted set of when each finished run expires; 3 the run index of `queryRuns`.
const LAYOUT_VERSION = 3;

// ioredis rejects with a ReplyError when Redis answered with an error; anything else from the client
// (reset, refused, "Connection is closed", a command timeout, MaxRetriesPerRequestError) means no answer.
function isConnectionError(error: unknown): boolean {
  return error instanceof Error && error.name !== 'ReplyError';
}

/**
 * A store on Redis (ioredis, an optional peer dependency loaded on first use). Each command times out after
 * `commandTimeoutMs`; finished runs expire `retentionMs` after their last write; `listRuns({ status })` reads
 * a sorted set per status. A run's event log is a list (`<prefix>events:<runId>`), a shared value a hash
 * (`<prefix>value:<key>`); signals use pub/sub (`<prefix>signal:<channel>`) on a second connection the
 * store opens on the first `onSignal` (a duplicate of your `client` when you gave one) and closes on `close()`.
 */
export function redisStore(options: RedisStoreOptions = {}): GuardedStore {
  const { commandTimeoutMs, connectTimeoutMs, retentionMs, onWarning } = resolveStoreOptions(options);
  const prefix = options.prefix ?? defaults.redisPrefix;
  let clientPromise: Promise<Redis> | undefined;
  let opened: Redis | undefined;
  const ownsClient = options.client === undefined;
  let warnedAboutConnection = false;
  let everReady = false;
  const connect = async (): Promise<Redis> => {
    let redis = options.client;
    if (!redis) {
      const { Redis } = await loadOptional('ioredis', () => import('ioredis'), 'redisStore');
      const defaults: RedisOptions = {
        commandTimeout: commandTimeoutMs,
        connectTimeout: commandTimeoutMs,
        keepAlive: 30_000,
      };
      redis = options.url ? new Redis(options.url, defaults) : new Redis({ ...defaults, ...options.options });
      opened = redis;
      // ioredis reconnects by itself; without a listener each failed attempt is printed as unhandled.
      redis.on('error', (error: Error) => {
        if (warnedAboutConnection) return;
        warnedAboutConnection = true;
        onWarning(`redisStore: connection error, reconnecting (${error.message})`);
      });
      // Bounded once: a store that never connected gives up, naming the address, and the next operation
      // starts a new client.
      if (!everReady) await waitForRedis(redis, redisAddress(redis.options), connectTimeoutMs);
      everReady = true;
    }
    await migrate(redis);
    return redis;
  };
  const client = () => {
    clientPromise ??= connect();
    clientPromise.catch(() => {
      clientPromise = undefined;
    });
    return clientPromise;
  };
  const runKey = (id: string) => `${prefix}run:${id}`;
  const indexKey = `${prefix}runs`;
  const statusKey = (status: RunStatus) => `${prefix}runs:${status}`;
  const layoutKey = `${prefix}layout`;
  const expiryKey = `${prefix}runs:expiry`;
  const indexKeys = [indexKey, ...STATUSES.map(statusKey), expiryKey];
  const itemsKey = (id: string) => `${prefix}session:${id}`;
  const sessionKeysKey = (id: string) => `${prefix}session-keys:${id}`;
  const sharedState = createRedisSharedState({ client, prefix });
  const signals = createRedisSignals({
    client,
    prefix,
    commandTimeoutMs,
    onWarning,
    async openSubscriber() {
      // The subscriber subscribes again itself after a reconnect (see createRedisSignals).
      if (options.client) return options.client.duplicate({ autoResubscribe: false });
      const { Redis } = await loadOptional('ioredis', () => import('ioredis'), 'redisStore');
      const defaults: RedisOptions = {
        commandTimeout: commandTimeoutMs,
        connectTimeout: commandTimeoutMs,
        keepAlive: 30_000,
        autoResubscribe: false,
      };
      return options.url
        ? new Redis(options.url, defaults)
        : new Redis({ ...defaults, ...options.options, autoResubscribe: false });
    },
  });

  // Keys written before the status sets and expiry existed: fill the sets once from the index, and give
  // finished runs the expiry a finishing write gives them now. A run rewritten meanwhile may land in a
  // stale status set; listing checks each record's status and repairs the set.
  async function migrate(redis: Redis): Promise<void> {
    const layout = Number(await redis.get(layoutKey));
    if (layout >= LAYOUT_VERSION) return;
    if (layout < 2) await addStatusSets(redis);
    await indexOldRedisRuns(
      redis,
      prefix,
      async (id) => toRecord(id, await redis.hmget(runKey(id), 'version', 'createdAt', 'json', 'writeId')),
      onWarning,
    );
    await redis.set(layoutKey, String(LAYOUT_VERSION));
  }

  async function addStatusSets(redis: Redis): Promise<void> {
    for (let start = 0; ; start += 500) {
      const entries = await redis.zrange(indexKey, start, start + 499, 'WITHSCORES');
      if (entries.length === 0) break;
      const ids = entries.filter((_, index) => index % 2 === 0);
      const rows = await Promise.all(ids.map((id) => redis.hmget(runKey(id), 'status', 'json')));
      const pipeline = redis.pipeline();
      rows.forEach(([status, json], index) => {
        const id = ids[index]!;
        const found = statusOf(status ?? null, json ?? null);
        if (!found) return;
        pipeline.zadd(statusKey(found), entries[index * 2 + 1]!, id);
        const updatedAt = json ? updatedAtOf(json) : undefined;
        if (isFinished(found) && updatedAt !== undefined) {
          pipeline.zadd(expiryKey, updatedAt + retentionMs, id);
          pipeline.pexpire(runKey(id), Math.max(1, updatedAt + retentionMs - Date.now()));
        }
      });
      await pipeline.exec();
    }
  }

  const writeRun = async (
    record: RunRecord,
    expected: number | undefined,
    append?: SessionAppend,
  ): Promise<number> => {
    const redis = await client();
    const ttl = isFinished(record.status) ? String(retentionMs) : '';
    return (await evalScript(
      redis,
      WRITE_RUN,
      append ? 8 : 7,
      runKey(record.id),
      indexKey,
      statusKey(record.status),
      ...STATUSES.filter((status) => status !== record.status).map(statusKey),
      expiryKey,
      ...(append ? [itemsKey(append.sessionId)] : []),
      expected === undefined ? '' : String(expected),
      JSON.stringify(record),
      String(record.createdAt),
      record.id,
      record.status,
      record.writeId!,
      ttl,
      String(Date.now()),
      prefix,
      String(record.updatedAt),
      ...redisIndexArgs(record),
      ...(append ? append.items.map((item) => JSON.stringify(item)) : []),
    )) as number;
  };
  const toRecord = (id: string, row: (string | null)[]): RunRecord | undefined => {
    const [version = null, createdAt = null, json = null, writeId = null] = row;
    if (version === null && json === null) return undefined;
    const source = { runId: id, key: runKey(id) };
    if (version === null)
      throw new StoredRunInvalidError({ ...source, problem: 'the hash has no "version"' });
    if (json === null) throw new StoredRunInvalidError({ ...source, problem: 'the hash has no "json"' });
    const value = parseStoredRun(json, source);
    return checkStoredRun(
      {
        ...value,
        version: Number(version),
        createdAt: Number(createdAt ?? value.createdAt),
        ...(writeId !== null && { writeId }),
      },
      source,
    );
  };
  const readRun = async (id: string): Promise<RunRecord | undefined> => {
    const redis = await client();
    return toRecord(id, await redis.hmget(runKey(id), 'version', 'createdAt', 'json', 'writeId'));
  };
  const removeFromIndexes = (redis: Redis, id: string) =>
    redis
      .zrem(indexKey, id)
      .then(() => Promise.all(STATUSES.map((status) => redis.zrem(statusKey(status), id))));

  return guardStore(
    'redisStore',
    {
      async createRun(input: RunRecordInput, writeOptions?: WriteRunOptions) {
        const record = stampRecord(input, 1, Date.now(), writeIdOf(writeOptions));
        const createdAt = await writeRun(record, undefined);
        if (createdAt < 0) throw new RunConflictError({ runId: input.id });
        record.createdAt = createdAt;
        return record;
      },
      getRun: readRun,
      async updateRun(id, expectedVersion, input, writeOptions) {
        const record = stampRecord(input, expectedVersion + 1, 0, writeIdOf(writeOptions));
        const createdAt = await writeRun(record, expectedVersion);
        if (createdAt < 0) throw new RunConflictError({ runId: id, expectedVersion });
        record.createdAt = createdAt;
        return record;
      },
      async commitRun(id, expectedVersion, input, append, writeOptions) {
        const record = stampRecord(input, expectedVersion + 1, 0, writeIdOf(writeOptions));
        const createdAt = await writeRun(record, expectedVersion, append);
        if (createdAt < 0) throw new RunConflictError({ runId: id, expectedVersion });
        record.createdAt = createdAt;
        return record;
      },
      async listRuns({ status, limit = 100 }: ListRunsOptions = {}) {
        const redis = await client();
        const key = status === undefined ? indexKey : statusKey(status);
        const found: RunRecord[] = [];
        // Newest first, a page at a time; an id whose run expired or moved on is dropped from the set.
        for (let start = 0; found.length < limit; ) {
          const ids = await redis.zrevrange(key, start, start + Math.max(limit - found.length, 10) - 1);
          if (ids.length === 0) break;
          const rows = await Promise.all(
            ids.map((id) => redis.hmget(runKey(id), 'version', 'createdAt', 'json', 'writeId')),
          );
          const stale: string[] = [];
          const expired: string[] = [];
          rows.forEach((row, index) => {
            const id = ids[index]!;
            try {
              const record = toRecord(id, row);
              if (!record) expired.push(id);
              else if (status !== undefined && record.status !== status) stale.push(id);
              else found.push(record);
            } catch (error) {
              if (!StoredRunInvalidError.isInstance(error)) throw error;
              onWarning(skippedRunWarning(error));
            }
          });
          await Promise.all([
            ...expired.map((id) => removeFromIndexes(redis, id)),
            ...stale.map((id) => redis.zrem(key, id)),
          ]);
          start += ids.length - stale.length - expired.length;
        }
        return found.slice(0, limit);
      },
      async queryRuns(query?: RunQuery) {
        const normalized = normalizeRunQuery(query);
        const redis = await client();
        return queryRedisRuns(redis, prefix, indexKeys, normalized);
      },
      async deleteRun(id) {
        const redis = await client();
        await evalScript(redis, DELETE_RUN, 7, runKey(id), ...indexKeys, id, prefix);
      },
      async pruneRuns({ olderThanMs = retentionMs }: PruneRunsOptions = {}) {
        // The expiry zset scores each finished run by its last write plus the retention.
        const redis = await client();
        const upTo = Date.now() - olderThanMs + retentionMs;
        let deleted = 0;
        for (;;) {
          const ids = await redis.zrangebyscore(expiryKey, '-inf', upTo, 'LIMIT', 0, 500);
          if (ids.length === 0) break;
          const removed = await Promise.all(
            ids.map(
              (id) =>
                evalScript(redis, PRUNE_RUN, 7, runKey(id), ...indexKeys, id, prefix) as Promise<number>,
            ),
          );
          deleted += removed.reduce((sum, count) => sum + count, 0);
        }
        return { deleted };
      },
      async getItems(sessionId, limit) {
        const redis = await client();
        const items = await redis.lrange(itemsKey(sessionId), limit === undefined ? 0 : -limit, -1);
        return items.map((item) => JSON.parse(item) as ChatMessage);
      },
      async addItems(sessionId, items, { idempotencyKey }: AddItemsOptions = {}) {
        if (items.length === 0 && idempotencyKey === undefined) return;
        const redis = await client();
        await evalScript(
          redis,
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
      appendRunEvents: sharedState.appendRunEvents,
      [APPEND_AND_SIGNAL]: sharedState.appendRunEventsAndSignal,
      readRunEvents: sharedState.readRunEvents,
      getValue: sharedState.getValue,
      setValueIf: sharedState.setValueIf,
      signal: signals.signal,
      onSignal: signals.onSignal,
      async close() {
        await signals.close();
        const current = clientPromise;
        clientPromise = undefined;
        if (!ownsClient || !current) return;
        const redis = await current.catch(() => undefined);
        if (!redis) return;
        // quit waits for the replies still due; a client that cannot reach Redis is cut instead.
        if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
        else redis.disconnect();
      },
    },
    isConnectionError,
    (error) => {
      // A command that failed while the connection looked ready timed out: the connection may be half-open
      // (no reset will ever come), so it is replaced rather than trusted with the next command.
      const current = ownsClient ? opened : undefined;
      if (
        current?.status === 'ready' &&
        !(error instanceof Error && error.name === 'MaxRetriesPerRequestError')
      ) {
        current.disconnect(true);
      }
    },
  );
}

// The status of a hash written before the hash had a `status` field is read from its JSON.
function statusOf(field: string | null, json: string | null): RunStatus | undefined {
  if (STATUSES.includes(field as RunStatus)) return field as RunStatus;
  try {
    const status = json === null ? undefined : (JSON.parse(json) as { status?: unknown }).status;
    return STATUSES.includes(status as RunStatus) ? (status as RunStatus) : undefined;
  } catch {
    return undefined;
  }
}

function updatedAtOf(json: string): number | undefined {
  try {
    const updatedAt = (JSON.parse(json) as { updatedAt?: unknown }).updatedAt;
    return typeof updatedAt === 'number' ? updatedAt : undefined;
  } catch {
    return undefined;
  }
}
