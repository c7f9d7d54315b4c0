import type { Redis, RedisOptions } from 'ioredis';
import type { RunQuery, RunQueryPage } from '../agent/durable/run-query.js';
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
import { evalScript } from './eval-script.js';
import { type GuardedStore, guardStore } from './guard-store.js';
import { RedisConnection } from './redis-connection.js';
import { indexOldRedisRuns, queryRedisRuns, redisIndexArgs } from './redis-run-index.js';
import { ADD_ITEMS, DELETE_RUN, PRUNE_RUN, WRITE_RUN } from './redis-scripts.js';
import { createRedisSharedState } from './redis-shared-state.js';
import { createRedisSignals } from './redis-signals.js';
import { APPEND_AND_SIGNAL, type AppendAndSignal } from './run-events-signal.js';
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
  const store = new RedisRunStore(options);
  return guardStore('redisStore', store, isConnectionError, (error) => store.replaceIfHalfOpen(error));
}

const RUN_FIELDS = ['version', 'createdAt', 'json', 'writeId'] as const;

/** `redisStore`'s operations: runs in hashes indexed by sorted sets, sessions in lists, written by Lua scripts. */
class RedisRunStore implements GuardedStore {
  readonly #prefix: string;
  readonly #retentionMs: number;
  readonly #onWarning: (message: string) => void;
  readonly #connection: RedisConnection;
  readonly #signals: ReturnType<typeof createRedisSignals>;
  readonly #indexKey: string;
  readonly #layoutKey: string;
  readonly #expiryKey: string;
  readonly #indexKeys: string[];
  readonly appendRunEvents: GuardedStore['appendRunEvents'];
  readonly [APPEND_AND_SIGNAL]: AppendAndSignal;
  readonly readRunEvents: GuardedStore['readRunEvents'];
  readonly getValue: GuardedStore['getValue'];
  readonly setValueIf: GuardedStore['setValueIf'];
  readonly signal: GuardedStore['signal'];
  readonly onSignal: GuardedStore['onSignal'];

  constructor(options: RedisStoreOptions) {
    const { commandTimeoutMs, connectTimeoutMs, retentionMs, onWarning } = resolveStoreOptions(options);
    const prefix = options.prefix ?? defaults.redisPrefix;
    this.#prefix = prefix;
    this.#retentionMs = retentionMs;
    this.#onWarning = onWarning;
    this.#indexKey = `${prefix}runs`;
    this.#layoutKey = `${prefix}layout`;
    this.#expiryKey = `${prefix}runs:expiry`;
    this.#indexKeys = [this.#indexKey, ...STATUSES.map((status) => this.#statusKey(status)), this.#expiryKey];
    this.#connection = new RedisConnection({
      url: options.url,
      options: options.options,
      client: options.client,
      commandTimeoutMs,
      connectTimeoutMs,
      onWarning,
      prepare: (redis) => this.#migrate(redis),
    });
    const client = () => this.#connection.client();
    const sharedState = createRedisSharedState({ client, prefix });
    this.#signals = createRedisSignals({
      client,
      prefix,
      commandTimeoutMs,
      onWarning,
      // The subscriber subscribes again itself after a reconnect (see createRedisSignals).
      openSubscriber: () => this.#connection.openSubscriber(),
    });
    this.appendRunEvents = sharedState.appendRunEvents;
    this[APPEND_AND_SIGNAL] = sharedState.appendRunEventsAndSignal;
    this.readRunEvents = sharedState.readRunEvents;
    this.getValue = sharedState.getValue;
    this.setValueIf = sharedState.setValueIf;
    this.signal = this.#signals.signal;
    this.onSignal = this.#signals.onSignal;
  }

  async createRun(input: RunRecordInput, writeOptions?: WriteRunOptions): Promise<RunRecord> {
    const record = stampRecord(input, 1, Date.now(), writeIdOf(writeOptions));
    const createdAt = await this.#writeRun(record, undefined);
    if (createdAt < 0) throw new RunConflictError({ runId: input.id });
    record.createdAt = createdAt;
    return record;
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const redis = await this.#connection.client();
    return this.#toRecord(id, await redis.hmget(this.#runKey(id), ...RUN_FIELDS));
  }

  updateRun(
    id: string,
    expectedVersion: number,
    input: RunRecordInput,
    writeOptions?: WriteRunOptions,
  ): Promise<RunRecord> {
    return this.#writeNextVersion(id, expectedVersion, input, writeOptions);
  }

  commitRun(
    id: string,
    expectedVersion: number,
    input: RunRecordInput,
    append: SessionAppend,
    writeOptions?: WriteRunOptions,
  ): Promise<RunRecord> {
    return this.#writeNextVersion(id, expectedVersion, input, writeOptions, append);
  }

  async listRuns({ status, limit = 100 }: ListRunsOptions = {}): Promise<RunRecord[]> {
    const redis = await this.#connection.client();
    const key = status === undefined ? this.#indexKey : this.#statusKey(status);
    const found: RunRecord[] = [];
    // Newest first, a page at a time; an id whose run expired or moved on is dropped from the set.
    for (let start = 0; found.length < limit; ) {
      const ids = await redis.zrevrange(key, start, start + Math.max(limit - found.length, 10) - 1);
      if (ids.length === 0) break;
      const rows = await Promise.all(ids.map((id) => redis.hmget(this.#runKey(id), ...RUN_FIELDS)));
      const stale: string[] = [];
      const expired: string[] = [];
      rows.forEach((row, index) => {
        const id = ids[index]!;
        try {
          const record = this.#toRecord(id, row);
          if (!record) expired.push(id);
          else if (status !== undefined && record.status !== status) stale.push(id);
          else found.push(record);
        } catch (error) {
          if (!StoredRunInvalidError.isInstance(error)) throw error;
          this.#onWarning(skippedRunWarning(error));
        }
      });
      await Promise.all([
        ...expired.map((id) => this.#removeFromIndexes(redis, id)),
        ...stale.map((id) => redis.zrem(key, id)),
      ]);
      start += ids.length - stale.length - expired.length;
    }
    return found.slice(0, limit);
  }

  async queryRuns(query?: RunQuery): Promise<RunQueryPage> {
    const normalized = normalizeRunQuery(query);
    const redis = await this.#connection.client();
    return queryRedisRuns(redis, this.#prefix, this.#indexKeys, normalized);
  }

  async deleteRun(id: string): Promise<void> {
    const redis = await this.#connection.client();
    await evalScript(redis, DELETE_RUN, 7, this.#runKey(id), ...this.#indexKeys, id, this.#prefix);
  }

  async pruneRuns({ olderThanMs = this.#retentionMs }: PruneRunsOptions = {}): Promise<{ deleted: number }> {
    // The expiry zset scores each finished run by its last write plus the retention.
    const redis = await this.#connection.client();
    const upTo = Date.now() - olderThanMs + this.#retentionMs;
    let deleted = 0;
    for (;;) {
      const ids = await redis.zrangebyscore(this.#expiryKey, '-inf', upTo, 'LIMIT', 0, 500);
      if (ids.length === 0) break;
      const removed = await Promise.all(
        ids.map(
          (id) =>
            evalScript(
              redis,
              PRUNE_RUN,
              7,
              this.#runKey(id),
              ...this.#indexKeys,
              id,
              this.#prefix,
            ) as Promise<number>,
        ),
      );
      deleted += removed.reduce((sum, count) => sum + count, 0);
    }
    return { deleted };
  }

  async getItems(sessionId: string, limit?: number): Promise<ChatMessage[]> {
    const redis = await this.#connection.client();
    const items = await redis.lrange(this.#itemsKey(sessionId), limit === undefined ? 0 : -limit, -1);
    return items.map((item) => JSON.parse(item) as ChatMessage);
  }

  async addItems(
    sessionId: string,
    items: readonly ChatMessage[],
    { idempotencyKey }: AddItemsOptions = {},
  ): Promise<void> {
    if (items.length === 0 && idempotencyKey === undefined) return;
    const redis = await this.#connection.client();
    await evalScript(
      redis,
      ADD_ITEMS,
      2,
      this.#itemsKey(sessionId),
      this.#sessionKeysKey(sessionId),
      idempotencyKey ?? '',
      ...items.map((item) => JSON.stringify(item)),
    );
  }

  async popItem(sessionId: string): Promise<ChatMessage | undefined> {
    const redis = await this.#connection.client();
    const item = await redis.rpop(this.#itemsKey(sessionId));
    return item === null ? undefined : (JSON.parse(item) as ChatMessage);
  }

  async clearSession(sessionId: string): Promise<void> {
    const redis = await this.#connection.client();
    await redis.del(this.#itemsKey(sessionId), this.#sessionKeysKey(sessionId));
  }

  async close(): Promise<void> {
    await this.#signals.close();
    await this.#connection.close();
  }

  /** After a failed command: see `RedisConnection.replaceIfHalfOpen`. */
  replaceIfHalfOpen(error: unknown): void {
    this.#connection.replaceIfHalfOpen(error);
  }

  #runKey(id: string): string {
    return `${this.#prefix}run:${id}`;
  }

  #statusKey(status: RunStatus): string {
    return `${this.#prefix}runs:${status}`;
  }

  #itemsKey(sessionId: string): string {
    return `${this.#prefix}session:${sessionId}`;
  }

  #sessionKeysKey(sessionId: string): string {
    return `${this.#prefix}session-keys:${sessionId}`;
  }

  #removeFromIndexes(redis: Redis, id: string): Promise<unknown> {
    return redis
      .zrem(this.#indexKey, id)
      .then(() => Promise.all(STATUSES.map((status) => redis.zrem(this.#statusKey(status), id))));
  }

  // `updateRun` and `commitRun`: the next version if the run is still at `expectedVersion`.
  async #writeNextVersion(
    id: string,
    expectedVersion: number,
    input: RunRecordInput,
    writeOptions: WriteRunOptions | undefined,
    append?: SessionAppend,
  ): Promise<RunRecord> {
    const record = stampRecord(input, expectedVersion + 1, 0, writeIdOf(writeOptions));
    const createdAt = await this.#writeRun(record, expectedVersion, append);
    if (createdAt < 0) throw new RunConflictError({ runId: id, expectedVersion });
    record.createdAt = createdAt;
    return record;
  }

  // One WRITE_RUN script: the version check, the hash, every index and the session append, atomically.
  async #writeRun(record: RunRecord, expected: number | undefined, append?: SessionAppend): Promise<number> {
    const redis = await this.#connection.client();
    const ttl = isFinished(record.status) ? String(this.#retentionMs) : '';
    return (await evalScript(
      redis,
      WRITE_RUN,
      append ? 8 : 7,
      this.#runKey(record.id),
      this.#indexKey,
      this.#statusKey(record.status),
      ...STATUSES.filter((status) => status !== record.status).map((status) => this.#statusKey(status)),
      this.#expiryKey,
      ...(append ? [this.#itemsKey(append.sessionId)] : []),
      expected === undefined ? '' : String(expected),
      JSON.stringify(record),
      String(record.createdAt),
      record.id,
      record.status,
      record.writeId!,
      ttl,
      String(Date.now()),
      this.#prefix,
      String(record.updatedAt),
      ...redisIndexArgs(record),
      ...(append ? append.items.map((item) => JSON.stringify(item)) : []),
    )) as number;
  }

  #toRecord(id: string, row: (string | null)[]): RunRecord | undefined {
    const [version = null, createdAt = null, json = null, writeId = null] = row;
    if (version === null && json === null) return undefined;
    const source = { runId: id, key: this.#runKey(id) };
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
  }

  // Keys written before the status sets and expiry existed: fill the sets once from the index, and give
  // finished runs the expiry a finishing write gives them now. A run rewritten meanwhile may land in a
  // stale status set; listing checks each record's status and repairs the set.
  async #migrate(redis: Redis): Promise<void> {
    const layout = Number(await redis.get(this.#layoutKey));
    if (layout >= LAYOUT_VERSION) return;
    if (layout < 2) await this.#addStatusSets(redis);
    await indexOldRedisRuns(
      redis,
      this.#prefix,
      async (id) => this.#toRecord(id, await redis.hmget(this.#runKey(id), ...RUN_FIELDS)),
      this.#onWarning,
    );
    await redis.set(this.#layoutKey, String(LAYOUT_VERSION));
  }

  async #addStatusSets(redis: Redis): Promise<void> {
    for (let start = 0; ; start += 500) {
      const entries = await redis.zrange(this.#indexKey, start, start + 499, 'WITHSCORES');
      if (entries.length === 0) break;
      const ids = entries.filter((_, index) => index % 2 === 0);
      const rows = await Promise.all(ids.map((id) => redis.hmget(this.#runKey(id), 'status', 'json')));
      const pipeline = redis.pipeline();
      rows.forEach(([status, json], index) => {
        const id = ids[index]!;
        const found = statusOf(status ?? null, json ?? null);
        if (!found) return;
        pipeline.zadd(this.#statusKey(found), entries[index * 2 + 1]!, id);
        const updatedAt = json ? updatedAtOf(json) : undefined;
        if (isFinished(found) && updatedAt !== undefined) {
          pipeline.zadd(this.#expiryKey, updatedAt + this.#retentionMs, id);
          pipeline.pexpire(this.#runKey(id), Math.max(1, updatedAt + this.#retentionMs - Date.now()));
        }
      });
      await pipeline.exec();
    }
  }
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
