import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RunQuery } from '../agent/durable/run-query.js';
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
import { atomicWrite } from './atomic-write.js';
import { withFileLock } from './file-lock.js';
import { FileRunIndex } from './file-run-index.js';
import { createFileSharedState } from './file-shared-state.js';
import { type GuardedStore, guardStore } from './guard-store.js';
import { createLocalSignals, type LocalSignals } from './local-signals.js';
import { normalizeRunQuery } from './run-query-input.js';
import { checkOnSignal } from './shared-state-checks.js';
import { StoredRunInvalidError } from './store-errors.js';
import { resolveStoreOptions, type StoreOptions } from './store-options.js';
import { createPruneOnWrite, deliverSignal, listNewestFirst, stampRecord, writeIdOf } from './store-utils.js';
import { checkStoredRun, isFinished, parseStoredRun, skippedRunWarning } from './stored-run.js';

/** Options of `fileStore`. */
export interface FileStoreOptions extends Pick<StoreOptions, 'retentionMs' | 'onWarning'> {
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
 * machine can share the directory. Listing reads every run file (a directory for one machine's runs),
 * which pruning keeps bounded: finished runs older than `retentionMs` go on write (at most once a minute)
 * and with `pruneRuns()`, which also deletes expired event logs and values. A run's event log is a
 * JSON-lines file under `events/`, a shared value a JSON file under `values/`. Signals reach only the
 * listeners in this process (of every `fileStore` on the same `dir`): a listener in another process
 * does not hear them and relies on re-reading on its timer, as `SignalStore` allows.
 */
export function fileStore({ dir, fsync = true, ...options }: FileStoreOptions): GuardedStore {
  const { retentionMs, onWarning } = resolveStoreOptions(options);
  const runsDir = join(dir, 'runs');
  const sessionsDir = join(dir, 'sessions');
  let ready: Promise<unknown> | undefined;
  const ensureDirs = () => {
    ready ??= Promise.all([mkdir(runsDir, { recursive: true }), mkdir(sessionsDir, { recursive: true })]);
    return ready;
  };
  const runPath = (id: string) => join(runsDir, `${fileName(id)}.json`);
  const sessionPath = (id: string) => join(sessionsDir, `${fileName(id)}.json`);

  const readStoredRun = (id: string) => readRunFile(runPath(id), id) as Promise<StoredRun | undefined>;
  const readRun = async (id: string) => withoutCommitId(await readStoredRun(id));
  // A pending commit whose record was never written leaves its items out of the session.
  const committed = async (pending: PendingCommit) =>
    (await readStoredRun(pending.runId))?.commitId === pending.commitId;
  const readSession = async (id: string): Promise<SessionFile> => {
    const text = readText(sessionPath(id));
    const session = text === undefined ? { items: [], keys: [] } : (JSON.parse(text) as SessionFile);
    const { pending } = session;
    if (pending && !(await committed(pending))) session.items.splice(pending.at, pending.count);
    delete session.pending;
    return session;
  };
  const prune = async (olderThanMs: number) => {
    await ensureDirs();
    const cutoff = Date.now() - olderThanMs;
    let deleted = 0;
    for (const name of (await readdir(runsDir)).filter((file) => file.endsWith('.json'))) {
      const path = join(runsDir, name);
      const old = async () => {
        const record = await readRunFile(path, name).catch(() => undefined);
        return record !== undefined && isFinished(record.status) && record.updatedAt < cutoff;
      };
      if (!(await old())) continue;
      // Checked again under the run's lock: a finished run may be resumed, and a resumed one is not old.
      await withFileLock(`${path}.lock`, async () => {
        if (!(await old())) return;
        await rm(path, { force: true });
        deleted++;
      });
    }
    return { deleted };
  };
  const runIndex = new FileRunIndex({
    runsDir,
    read: async (name) => withoutCommitId(await readRunFile(join(runsDir, name), idOfFile(name))),
    onWarning,
  });
  const sharedState = createFileSharedState({ dir, fsync, fileName });
  const signals = signalsOf(dir);
  // This store's subscriptions, dropped on close (other stores on the same folder keep theirs).
  const subscriptions = new Set<() => Promise<void>>();
  const pruneOnWrite = createPruneOnWrite(async () => {
    await prune(retentionMs);
    await sharedState.pruneExpired();
  }, onWarning);
  const ours = (current: RunRecord | undefined, version: number, writeId: string) =>
    current?.version === version && current.writeId === writeId;
  const withSession = async <T>(id: string, fn: (session: SessionFile) => Promise<T>) => {
    await ensureDirs();
    const path = sessionPath(id);
    return withFileLock(`${path}.lock`, () => readSession(id).then(fn));
  };
  const writeSession = (id: string, session: SessionFile) =>
    atomicWrite(sessionPath(id), JSON.stringify(session), fsync);

  // A version-checked write under the run's lock. With `append` (`commitRun`) the session's lock is taken
  // too (always the run's first: `updateRun` and `addItems` each take only one) and the items are marked
  // pending until the record naming their commit is written, so a crash between the two undoes them.
  const writeRun = async (
    id: string,
    expectedVersion: number,
    input: RunRecordInput,
    writeOptions: WriteRunOptions | undefined,
    append?: SessionAppend,
  ) => {
    await ensureDirs();
    const path = runPath(id);
    const writeId = writeIdOf(writeOptions);
    const written = await withFileLock(`${path}.lock`, async () => {
      const current = await readStoredRun(id);
      if (ours(current, expectedVersion + 1, writeId)) return withoutCommitId(current)!;
      if (!current || current.version !== expectedVersion) {
        throw new RunConflictError({ runId: id, expectedVersion });
      }
      const record = stampRecord(input, expectedVersion + 1, current.createdAt, writeId);
      if (!append) {
        // The last commit's id stays: a session may still name it as pending.
        const stored: StoredRun = current.commitId ? { ...record, commitId: current.commitId } : record;
        await atomicWrite(path, JSON.stringify(stored), fsync);
        return record;
      }
      const { sessionId, items } = append;
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
    if (isFinished(written.status)) pruneOnWrite();
    return written;
  };

  return guardStore(
    'fileStore',
    {
      async createRun(input: RunRecordInput, writeOptions?: WriteRunOptions) {
        await ensureDirs();
        const path = runPath(input.id);
        const writeId = writeIdOf(writeOptions);
        return withFileLock(`${path}.lock`, async () => {
          const current = await readRun(input.id);
          if (ours(current, 1, writeId)) return current!;
          if (current) throw new RunConflictError({ runId: input.id });
          const record = stampRecord(input, 1, Date.now(), writeId);
          await atomicWrite(path, JSON.stringify(record), fsync);
          return record;
        });
      },
      async getRun(id) {
        return readRun(id);
      },
      async updateRun(id, expectedVersion, input, writeOptions) {
        return writeRun(id, expectedVersion, input, writeOptions);
      },
      async commitRun(id, expectedVersion, input, append, writeOptions) {
        return writeRun(id, expectedVersion, input, writeOptions, append);
      },
      async listRuns(listOptions: ListRunsOptions = {}) {
        await ensureDirs();
        const names = (await readdir(runsDir)).filter((name) => name.endsWith('.json'));
        const records: RunRecord[] = [];
        for (const name of names) {
          try {
            const record = withoutCommitId(await readRunFile(join(runsDir, name), idOfFile(name)));
            if (record) records.push(record);
          } catch (error) {
            if (!StoredRunInvalidError.isInstance(error)) throw error;
            onWarning(skippedRunWarning(error));
          }
        }
        return listNewestFirst(records, listOptions);
      },
      async queryRuns(query?: RunQuery) {
        const normalized = normalizeRunQuery(query);
        await ensureDirs();
        return runIndex.page(normalized);
      },
      async deleteRun(id) {
        await rm(runPath(id), { force: true });
      },
      async pruneRuns({ olderThanMs = retentionMs }: PruneRunsOptions = {}) {
        const pruned = await prune(olderThanMs);
        await sharedState.pruneExpired();
        return pruned;
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
      appendRunEvents: sharedState.appendRunEvents,
      readRunEvents: sharedState.readRunEvents,
      getValue: sharedState.getValue,
      setValueIf: sharedState.setValueIf,
      signal: signals.signal,
      async onSignal(channel, listener) {
        checkOnSignal(channel, listener);
        // A listener that throws is reported to this store's onWarning, not the first store's of the folder.
        const unsubscribe = await signals.onSignal(channel, (message) =>
          deliverSignal([listener], channel, message, onWarning),
        );
        const own = async () => {
          subscriptions.delete(own);
          await unsubscribe();
        };
        subscriptions.add(own);
        return own;
      },
      async close() {
        await Promise.all([...subscriptions].map((unsubscribe) => unsubscribe()));
      },
    },
    () => false,
  );
}

// The signals of every fileStore on one folder in this process.
const signalsByDir = new Map<string, LocalSignals>();

function signalsOf(dir: string): LocalSignals {
  const key = resolve(dir);
  let signals = signalsByDir.get(key);
  if (!signals) {
    // Listeners are wrapped by their store, which reports their failures itself.
    signals = createLocalSignals(() => {});
    signalsByDir.set(key, signals);
  }
  return signals;
}

function idOfFile(name: string): string {
  return decodeURIComponent(name.slice(0, -5));
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
function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function readRunFile(path: string, id: string): Promise<RunRecord | undefined> {
  const text = readText(path);
  if (text === undefined) return undefined;
  const source = { runId: id, key: path };
  return checkStoredRun(parseStoredRun(text, source), source);
}
