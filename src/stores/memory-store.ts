import type {
  AddItemsOptions,
  ListRunsOptions,
  PruneRunsOptions,
  RunRecord,
  RunRecordInput,
  SessionAppend,
  WriteRunOptions,
} from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors.js';
import type { ChatMessage } from '../api/types/chat.js';
import { type GuardedStore, guardStore } from './guard-store.js';
import { resolveStoreOptions, type StoreOptions } from './store-options.js';
import { createPruneOnWrite, listNewestFirst, stampRecord, writeIdOf } from './store-utils.js';
import { isFinished } from './stored-run.js';

/** Options of `memoryStore`. */
export type MemoryStoreOptions = Pick<StoreOptions, 'retentionMs' | 'onWarning'>;

/**
 * A store in this process's memory: for tests and for runs that must survive only an approval pause.
 * Records are copied in and out, so a caller never shares objects with the store. Finished runs older
 * than `retentionMs` are pruned on write (at most once a minute) and by `pruneRuns()`.
 */
export function memoryStore(options: MemoryStoreOptions = {}): GuardedStore {
  const { retentionMs, onWarning } = resolveStoreOptions(options);
  const runs = new Map<string, RunRecord>();
  const sessions = new Map<string, { items: ChatMessage[]; keys: Set<string> }>();
  const session = (id: string) => {
    let entry = sessions.get(id);
    if (!entry) {
      entry = { items: [], keys: new Set() };
      sessions.set(id, entry);
    }
    return entry;
  };
  const prune = async (olderThanMs: number) => {
    const cutoff = Date.now() - olderThanMs;
    let deleted = 0;
    for (const [id, record] of runs) {
      if (isFinished(record.status) && record.updatedAt < cutoff) {
        runs.delete(id);
        deleted++;
      }
    }
    return { deleted };
  };
  const pruneOnWrite = createPruneOnWrite(() => prune(retentionMs), onWarning);
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
    const current = runs.get(id);
    const writeId = writeIdOf(writeOptions);
    if (ours(current, expectedVersion + 1, writeId)) return structuredClone(current!);
    if (!current || current.version !== expectedVersion) {
      throw new RunConflictError({ runId: id, expectedVersion });
    }
    const record = stampRecord(input, expectedVersion + 1, current.createdAt, writeId);
    runs.set(id, structuredClone(record));
    if (append) session(append.sessionId).items.push(...structuredClone(append.items));
    if (isFinished(record.status)) pruneOnWrite();
    return record;
  };
  return guardStore(
    'memoryStore',
    {
      async createRun(input: RunRecordInput, writeOptions?: WriteRunOptions) {
        const record = stampRecord(input, 1, Date.now(), writeIdOf(writeOptions));
        const current = runs.get(input.id);
        if (ours(current, 1, record.writeId!)) return structuredClone(current!);
        if (current) throw new RunConflictError({ runId: input.id });
        runs.set(input.id, structuredClone(record));
        return record;
      },
      async getRun(id) {
        const record = runs.get(id);
        return record && structuredClone(record);
      },
      async updateRun(id, expectedVersion, input, writeOptions) {
        return writeRun(id, expectedVersion, input, writeOptions);
      },
      async commitRun(id, expectedVersion, input, append, writeOptions) {
        return writeRun(id, expectedVersion, input, writeOptions, append);
      },
      async listRuns(listOptions: ListRunsOptions = {}) {
        return listNewestFirst([...runs.values()], listOptions).map((record) => structuredClone(record));
      },
      async deleteRun(id) {
        runs.delete(id);
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
      async close() {},
    },
    () => false,
  );
}
