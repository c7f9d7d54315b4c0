import type {
  AddItemsOptions,
  ListRunsOptions,
  RunRecord,
  RunRecordInput,
  Store,
} from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors/run-conflict-error.js';
import type { ChatMessage } from '../api/types/chat.js';
import { listNewestFirst, stampRecord } from './store-utils.js';

/**
 * A store in this process's memory: for tests and for runs that must survive only an approval pause.
 * Records are copied in and out, so a caller never shares objects with the store.
 */
export function memoryStore(): Store {
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
  return {
    async createRun(input: RunRecordInput) {
      if (runs.has(input.id)) throw new RunConflictError({ runId: input.id });
      const record = stampRecord(input, 1, Date.now());
      runs.set(input.id, structuredClone(record));
      return record;
    },
    async getRun(id) {
      const record = runs.get(id);
      return record && structuredClone(record);
    },
    async updateRun(id, expectedVersion, input) {
      const current = runs.get(id);
      if (!current || current.version !== expectedVersion) {
        throw new RunConflictError({ runId: id, expectedVersion });
      }
      const record = stampRecord(input, expectedVersion + 1, current.createdAt);
      runs.set(id, structuredClone(record));
      return record;
    },
    async commitRun(id, expectedVersion, input, { sessionId, items }) {
      const current = runs.get(id);
      if (!current || current.version !== expectedVersion) {
        throw new RunConflictError({ runId: id, expectedVersion });
      }
      const record = stampRecord(input, expectedVersion + 1, current.createdAt);
      runs.set(id, structuredClone(record));
      session(sessionId).items.push(...structuredClone(items));
      return record;
    },
    async listRuns(options: ListRunsOptions = {}) {
      return listNewestFirst([...runs.values()], options).map((record) => structuredClone(record));
    },
    async deleteRun(id) {
      runs.delete(id);
    },
    async getItems(sessionId, limit) {
      const items = sessions.get(sessionId)?.items ?? [];
      return structuredClone(limit === undefined ? items : items.slice(Math.max(0, items.length - limit)));
    },
    async addItems(sessionId, items, options: AddItemsOptions = {}) {
      const entry = session(sessionId);
      const key = options.idempotencyKey;
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
  };
}
