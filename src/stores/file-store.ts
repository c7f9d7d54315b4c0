import { readFileSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  AddItemsOptions,
  ListRunsOptions,
  RunRecord,
  RunRecordInput,
  Store,
} from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors/run-conflict-error.js';
import type { ChatMessage } from '../api/types/chat.js';
import { atomicWrite } from './atomic-write.js';
import { withFileLock } from './file-lock.js';
import { listNewestFirst, stampRecord } from './store-utils.js';

/** Options of `fileStore`. */
export interface FileStoreOptions {
  /** The directory holding `runs/` and `sessions/` (created if missing). */
  dir: string;
  /** fsync every write, so a power loss cannot lose a checkpoint. @default true */
  fsync?: boolean;
}

interface SessionFile {
  items: ChatMessage[];
  keys: string[];
}

/**
 * The embedded default store: one JSON file per run and per session under `dir`. Every write is atomic
 * (temporary file, fsync, rename) and every read-modify-write holds a lock file, so two processes on one
 * machine can share the directory.
 */
export function fileStore({ dir, fsync = true }: FileStoreOptions): Store {
  const runsDir = join(dir, 'runs');
  const sessionsDir = join(dir, 'sessions');
  let ready: Promise<unknown> | undefined;
  const ensureDirs = () => {
    ready ??= Promise.all([mkdir(runsDir, { recursive: true }), mkdir(sessionsDir, { recursive: true })]);
    return ready;
  };
  const runPath = (id: string) => join(runsDir, `${fileName(id)}.json`);
  const sessionPath = (id: string) => join(sessionsDir, `${fileName(id)}.json`);

  const readRun = (id: string) => readJson<RunRecord>(runPath(id));
  const readSession = async (id: string): Promise<SessionFile> =>
    (await readJson<SessionFile>(sessionPath(id))) ?? { items: [], keys: [] };
  const withSession = async <T>(id: string, fn: (session: SessionFile) => Promise<T>) => {
    await ensureDirs();
    const path = sessionPath(id);
    return withFileLock(`${path}.lock`, () => readSession(id).then(fn));
  };
  const writeSession = (id: string, session: SessionFile) =>
    atomicWrite(sessionPath(id), JSON.stringify(session), fsync);

  return {
    async createRun(input: RunRecordInput) {
      await ensureDirs();
      const path = runPath(input.id);
      return withFileLock(`${path}.lock`, async () => {
        if (await readRun(input.id)) throw new RunConflictError({ runId: input.id });
        const record = stampRecord(input, 1, Date.now());
        await atomicWrite(path, JSON.stringify(record), fsync);
        return record;
      });
    },
    async getRun(id) {
      return readRun(id);
    },
    async updateRun(id, expectedVersion, input) {
      await ensureDirs();
      const path = runPath(id);
      return withFileLock(`${path}.lock`, async () => {
        const current = await readRun(id);
        if (!current || current.version !== expectedVersion) {
          throw new RunConflictError({ runId: id, expectedVersion });
        }
        const record = stampRecord(input, expectedVersion + 1, current.createdAt);
        await atomicWrite(path, JSON.stringify(record), fsync);
        return record;
      });
    },
    async listRuns(options: ListRunsOptions = {}) {
      await ensureDirs();
      const names = (await readdir(runsDir)).filter((name) => name.endsWith('.json'));
      const records = await Promise.all(names.map((name) => readJson<RunRecord>(join(runsDir, name))));
      return listNewestFirst(
        records.filter((record): record is RunRecord => record !== undefined),
        options,
      );
    },
    async deleteRun(id) {
      await rm(runPath(id), { force: true });
    },
    async getItems(sessionId, limit) {
      const { items } = await readSession(sessionId);
      return limit === undefined ? items : items.slice(Math.max(0, items.length - limit));
    },
    async addItems(sessionId, items, options: AddItemsOptions = {}) {
      await withSession(sessionId, async (session) => {
        const key = options.idempotencyKey;
        if (key !== undefined) {
          if (session.keys.includes(key)) return;
          session.keys.push(key);
        }
        session.items.push(...items);
        await writeSession(sessionId, session);
      });
    },
    async popItem(sessionId) {
      return withSession(sessionId, async (session) => {
        const item = session.items.pop();
        if (item !== undefined) await writeSession(sessionId, session);
        return item;
      });
    },
    async clearSession(sessionId) {
      await withSession(sessionId, () => rm(sessionPath(sessionId), { force: true }));
    },
  };
}

// Any id becomes one safe file name: no separators, no dot-only names, no case clashes on odd filesystems.
function fileName(id: string): string {
  return encodeURIComponent(id).replace(
    /[.*!'()~]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

// A small local file: one synchronous read costs less than a thread-pool round trip per step.
async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
