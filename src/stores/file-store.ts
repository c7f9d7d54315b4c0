import { randomUUID } from 'node:crypto';
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
  /**
   * Items a `commitRun` appended before writing its run's record: if that process died before the record
   * was written (the record does not carry `commitId`), the items are taken out again.
   */
  pending?: PendingCommit;
}

interface PendingCommit {
  runId: string;
  commitId: string;
  at: number;
  count: number;
}

// The run file's form: the record, and the id of the commit that last wrote it with a session append.
type StoredRun = RunRecord & { commitId?: string };

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

  const readStoredRun = (id: string) => readJson<StoredRun>(runPath(id));
  const readRun = async (id: string) => withoutCommitId(await readStoredRun(id));
  // A pending commit whose record was never written leaves its items out of the session.
  const committed = async (pending: PendingCommit) =>
    (await readStoredRun(pending.runId))?.commitId === pending.commitId;
  const readSession = async (id: string): Promise<SessionFile> => {
    const session = (await readJson<SessionFile>(sessionPath(id))) ?? { items: [], keys: [] };
    const { pending } = session;
    if (pending && !(await committed(pending))) session.items.splice(pending.at, pending.count);
    delete session.pending;
    return session;
  };
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
        const current = await readStoredRun(id);
        if (!current || current.version !== expectedVersion) {
          throw new RunConflictError({ runId: id, expectedVersion });
        }
        const record = stampRecord(input, expectedVersion + 1, current.createdAt);
        // The last commit's id stays: a session may still name it as pending.
        const stored: StoredRun = current.commitId ? { ...record, commitId: current.commitId } : record;
        await atomicWrite(path, JSON.stringify(stored), fsync);
        return record;
      });
    },
    async commitRun(id, expectedVersion, input, { sessionId, items }) {
      await ensureDirs();
      const path = runPath(id);
      // Always the run's lock, then the session's: `updateRun` and `addItems` each take only one.
      return withFileLock(`${path}.lock`, async () => {
        const current = await readStoredRun(id);
        if (!current || current.version !== expectedVersion) {
          throw new RunConflictError({ runId: id, expectedVersion });
        }
        const record = stampRecord(input, expectedVersion + 1, current.createdAt);
        const commitId = randomUUID();
        await withSession(sessionId, async (session) => {
          const pending = { runId: id, commitId, at: session.items.length, count: items.length };
          session.items.push(...items);
          await writeSession(sessionId, { ...session, pending });
          await atomicWrite(path, JSON.stringify({ ...record, commitId }), fsync);
          await writeSession(sessionId, session);
        });
        return record;
      });
    },
    async listRuns(options: ListRunsOptions = {}) {
      await ensureDirs();
      const names = (await readdir(runsDir)).filter((name) => name.endsWith('.json'));
      const records = await Promise.all(
        names.map(async (name) => withoutCommitId(await readJson<StoredRun>(join(runsDir, name)))),
      );
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

function withoutCommitId(stored: StoredRun | undefined): RunRecord | undefined {
  if (stored?.commitId === undefined) return stored;
  const { commitId: _commitId, ...record } = stored;
  return record;
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
