import type { RunQuery } from '../agent/durable/run-query.js';
import type {
  AddItemsOptions,
  ListRunsOptions,
  PruneRunsOptions,
  RunRecord,
  RunRecordInput,
  SessionAppend,
  StoredRunEvent,
  WriteRunOptions,
} from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors.js';
import type { ChatMessage } from '../api/types/chat.js';
import { type Clock, systemClock } from '../core/clock.js';
import { ConfigurationError } from '../core/errors.js';
import { type GuardedStore, guardStore } from './guard-store.js';
import { createLocalSignals } from './local-signals.js';
import { LruMap } from './lru-map.js';
import { type IndexedRun, indexRun, pageOfRuns } from './page-of-runs.js';
import { normalizeRunQuery } from './run-query-input.js';
import {
  checkAppendRunEvents,
  checkGetValue,
  checkReadRunEvents,
  checkSetValueIf,
} from './shared-state-checks.js';
import { RunEventGapError } from './store-errors.js';
import { resolveStoreOptions, type StoreOptions } from './store-options.js';
import { createPruneOnWrite, listNewestFirst, readRange, stampRecord, writeIdOf } from './store-utils.js';
import { isFinished } from './stored-run.js';

/** Options of `memoryStore`. */
export interface MemoryStoreOptions extends Pick<StoreOptions, 'retentionMs' | 'onWarning'> {
  /** The most sessions kept; one more evicts the least recently used. @default 1000 */
  maxSessions?: number;
  /** The most run records kept, and separately the most run event logs; least recently used go first. @default 1000 */
  maxRuns?: number;
  /** The most shared values (`setValueIf`) kept; least recently used go first. @default 10000 */
  maxValues?: number;
  /** A session, run, event log or value not read or written for this long is dropped. @default 86400000 (1 day) */
  idleTtlMs?: number;
  /** Where expiries, TTLs, idleness and retention read the time (a test moves its own clock instead of sleeping). @default systemClock */
  clock?: Clock;
}

/** The defaults of `memoryStore`'s bounds: a chat server's few hundred MB at most (see `bench/`). */
export const defaultMemoryStoreOptions = {
  maxSessions: 1000,
  maxRuns: 1000,
  maxValues: 10_000,
  idleTtlMs: 24 * 60 * 60 * 1000,
} as const;

function resolveBounds(options: MemoryStoreOptions) {
  const bounds = { ...defaultMemoryStoreOptions };
  for (const name of ['maxSessions', 'maxRuns', 'maxValues', 'idleTtlMs'] as const) {
    const value = options[name];
    if (value === undefined) continue;
    if (!(typeof value === 'number' && Number.isSafeInteger(value) && value > 0)) {
      throw new ConfigurationError({ field: name, rule: `must be a positive integer, got ${String(value)}` });
    }
    bounds[name] = value as never;
  }
  return bounds;
}

/** A run's event log in memory. */
interface EventLog {
  events: string[];
  expiresAt: number | undefined;
}

/** A shared value in memory. */
interface StoredValue {
  value: string;
  version: number;
  expiresAt: number | undefined;
}

/**
 * A store in this process's memory: for tests, development and a single chat server whose conversations
 * may be lost on restart. Records are copied in and out, so a caller never shares objects with the store.
 * Memory stays bounded: at most `maxSessions` sessions, `maxRuns` runs and as many event logs, and
 * `maxValues` values, least recently used evicted first, and anything idle for `idleTtlMs` dropped
 * (defaults in `defaultMemoryStoreOptions`). Finished runs older than `retentionMs` are pruned on write
 * (at most once a minute) and by `pruneRuns()`. Signals reach the listeners of this store object only.
 */
export function memoryStore(options: MemoryStoreOptions = {}): GuardedStore {
  const { retentionMs, onWarning } = resolveStoreOptions(options);
  const { maxSessions, maxRuns, maxValues, idleTtlMs } = resolveBounds(options);
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  // Each record with its summary, computed when written: the index `queryRuns` reads, evicted with it.
  const runs = new LruMap<string, { record: RunRecord; indexed: IndexedRun }>({
    maxEntries: maxRuns,
    idleTtlMs,
    now,
  });
  const keep = (record: RunRecord) => {
    const copy = structuredClone(record);
    runs.set(record.id, { record: copy, indexed: indexRun(copy) });
  };
  const sessions = new LruMap<string, { items: ChatMessage[]; keys: Set<string> }>({
    maxEntries: maxSessions,
    idleTtlMs,
    now,
  });
  const eventLogs = new LruMap<string, EventLog>({ maxEntries: maxRuns, idleTtlMs, now });
  const values = new LruMap<string, StoredValue>({ maxEntries: maxValues, idleTtlMs, now });
  const signals = createLocalSignals(onWarning);
  const session = (id: string) => {
    let entry = sessions.get(id);
    if (!entry) {
      entry = { items: [], keys: new Set() };
      sessions.set(id, entry);
    }
    return entry;
  };
  const live = <T extends { expiresAt: number | undefined }>(map: LruMap<string, T>, key: string) => {
    const entry = map.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= now()) {
      map.delete(key);
      return undefined;
    }
    return entry;
  };
  const prune = async (olderThanMs: number) => {
    const cutoff = now() - olderThanMs;
    let deleted = 0;
    for (const [id, { record }] of runs.entries()) {
      if (isFinished(record.status) && record.updatedAt < cutoff) {
        runs.delete(id);
        deleted++;
      }
    }
    return { deleted };
  };
  const pruneOnWrite = createPruneOnWrite(() => prune(retentionMs), onWarning, now);
  // A write repeated with the id of the write that made the current version is answered, not refused.
  const ours = (current: RunRecord | undefined, version: number, writeId: string) =>
    current?.version === version && current.writeId === writeId;
  // A version-checked write; with `append`, the session's new items go in the same step (`commitRun`).
  const writeRun = async (
    id: string,
    expectedVersion: number,
    input: RunRecordInput,
    writeOptions: WriteRunOptions | undefined,
    append?: SessionAppend,
  ) => {
    const current = runs.get(id)?.record;
    const writeId = writeIdOf(writeOptions);
    if (ours(current, expectedVersion + 1, writeId)) return structuredClone(current!);
    if (!current || current.version !== expectedVersion) {
      throw new RunConflictError({ runId: id, expectedVersion });
    }
    const record = stampRecord(input, expectedVersion + 1, current.createdAt, writeId, now());
    keep(record);
    if (append) session(append.sessionId).items.push(...structuredClone(append.items));
    if (isFinished(record.status)) pruneOnWrite();
    return record;
  };
  return guardStore(
    'memoryStore',
    {
      async createRun(input: RunRecordInput, writeOptions?: WriteRunOptions) {
        const at = now();
        const record = stampRecord(input, 1, at, writeIdOf(writeOptions), at);
        const current = runs.get(input.id)?.record;
        if (ours(current, 1, record.writeId!)) return structuredClone(current!);
        if (current) throw new RunConflictError({ runId: input.id });
        keep(record);
        return record;
      },
      async getRun(id) {
        const record = runs.get(id)?.record;
        return record && structuredClone(record);
      },
      async updateRun(id, expectedVersion, input, writeOptions) {
        return writeRun(id, expectedVersion, input, writeOptions);
      },
      async commitRun(id, expectedVersion, input, append, writeOptions) {
        return writeRun(id, expectedVersion, input, writeOptions, append);
      },
      async listRuns(listOptions: ListRunsOptions = {}) {
        const records = Array.from(runs.values(), (run) => run.record);
        return listNewestFirst(records, listOptions).map((record) => structuredClone(record));
      },
      async deleteRun(id) {
        runs.delete(id);
      },
      async queryRuns(query?: RunQuery) {
        const normalized = normalizeRunQuery(query);
        return pageOfRuns(
          Array.from(runs.values(), (run) => run.indexed),
          normalized,
        );
      },
      async pruneRuns({ olderThanMs = retentionMs }: PruneRunsOptions = {}) {
        return prune(olderThanMs);
      },
      async getItems(sessionId, limit) {
        const items = sessions.get(sessionId)?.items ?? [];
        return structuredClone(limit === undefined ? items : items.slice(Math.max(0, items.length - limit)));
      },
      async addItems(sessionId, items, addOptions: AddItemsOptions = {}) {
        const entry = session(sessionId);
        const key = addOptions.idempotencyKey;
        if (key !== undefined) {
          if (entry.keys.has(key)) return;
          entry.keys.add(key);
        }
        entry.items.push(...structuredClone(items));
      },
      async popItem(sessionId) {
        return sessions.get(sessionId)?.items.pop();
      },
      async clearSession(sessionId) {
        sessions.delete(sessionId);
      },
      async appendRunEvents(runId, firstId, events, appendOptions) {
        const ttlMs = checkAppendRunEvents(runId, firstId, events, appendOptions);
        const log = live(eventLogs, runId) ?? { events: [], expiresAt: undefined };
        if (firstId > log.events.length) {
          throw new RunEventGapError({ runId, firstId, nextId: log.events.length });
        }
        log.events.push(...events.slice(log.events.length - firstId));
        if (ttlMs !== undefined) log.expiresAt = now() + ttlMs;
        eventLogs.set(runId, log);
      },
      async readRunEvents(runId, afterId, limit) {
        checkReadRunEvents(runId, afterId, limit);
        const stored = live(eventLogs, runId)?.events ?? [];
        const [start, end] = readRange(stored.length, afterId, limit);
        const read: StoredRunEvent[] = [];
        for (let id = start; id < end; id++) read.push({ id, data: stored[id]! });
        return read;
      },
      signal: signals.signal,
      onSignal: signals.onSignal,
      async getValue(key) {
        checkGetValue(key);
        const entry = live(values, key);
        return entry ? { value: entry.value, version: entry.version } : { value: undefined, version: 0 };
      },
      async setValueIf(key, version, value, valueOptions) {
        const ttlMs = checkSetValueIf(key, version, value, valueOptions);
        const current = live(values, key);
        if ((current?.version ?? 0) !== version) return false;
        if (value === undefined) values.delete(key);
        else
          values.set(key, {
            value,
            version: version + 1,
            expiresAt: ttlMs === undefined ? undefined : now() + ttlMs,
          });
        return true;
      },
      async close() {
        signals.clear();
      },
    },
    () => false,
  );
}
