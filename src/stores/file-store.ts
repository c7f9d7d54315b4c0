import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RunQuery, RunQueryPage } from '../agent/durable/run-query.js';
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
import { type Clock, systemClock } from '../core/clock.js';
import { atomicWrite } from './atomic-write.js';
import { withFileLock } from './file-lock.js';
import { FileRunIndex } from './file-run-index.js';
import { createFileSharedState, type FileSharedState } from './file-shared-state.js';
import { type GuardedStore, guardStore } from './guard-store.js';
import { createLocalSignals, type LocalSignals } from './local-signals.js';
import { SIGNALS_STAY_IN_PROCESS } from './run-events-signal.js';
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
  /** Where expiries, TTLs and retention read the time (a test moves its own clock instead of sleeping). @default systemClock */
  clock?: Clock;
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
export function fileStore(options: FileStoreOptions): GuardedStore {
  const store = guardStore('fileStore', new FileRunStore(options), () => false);
  // Its signals reach only this process: followers elsewhere learn of appends by re-reading.
  Object.defineProperty(store, SIGNALS_STAY_IN_PROCESS, { value: true });
  return store;
}

// A write repeated with the id of the write that made the current version is answered, not refused.
const ours = (current: RunRecord | undefined, version: number, writeId: string) =>
  current?.version === version && current.writeId === writeId;

/** `fileStore`'s operations: runs and sessions as files under their locks, the shared state beside them. */
class FileRunStore implements GuardedStore {
  readonly #runsDir: string;
  readonly #sessionsDir: string;
  readonly #fsync: boolean;
  readonly #retentionMs: number;
  readonly #onWarning: (message: string) => void;
  readonly #clock: Clock;
  readonly #runIndex: FileRunIndex;
  readonly #sharedState: FileSharedState;
  readonly #signals: LocalSignals;
  readonly #pruneOnWrite: () => void;
  // This store's subscriptions, dropped on close (other stores on the same folder keep theirs).
  readonly #subscriptions = new Set<() => Promise<void>>();
  #ready: Promise<unknown> | undefined;
  readonly appendRunEvents: GuardedStore['appendRunEvents'];
  readonly readRunEvents: GuardedStore['readRunEvents'];
  readonly getValue: GuardedStore['getValue'];
  readonly setValueIf: GuardedStore['setValueIf'];
  readonly signal: GuardedStore['signal'];

  constructor({ dir, fsync = true, clock = systemClock, ...options }: FileStoreOptions) {
    const { retentionMs, onWarning } = resolveStoreOptions(options);
    this.#runsDir = join(dir, 'runs');
    this.#sessionsDir = join(dir, 'sessions');
    this.#fsync = fsync;
    this.#retentionMs = retentionMs;
    this.#onWarning = onWarning;
    this.#clock = clock;
    this.#runIndex = new FileRunIndex({
      runsDir: this.#runsDir,
      read: async (name) => withoutCommitId(await readRunFile(join(this.#runsDir, name), idOfFile(name))),
      onWarning,
    });
    this.#sharedState = createFileSharedState({ dir, fsync, fileName, clock });
    this.#signals = signalsOf(dir);
    this.#pruneOnWrite = createPruneOnWrite(
      async () => {
        await this.#prune(retentionMs);
        await this.#sharedState.pruneExpired();
      },
      onWarning,
      () => clock.now(),
    );
    this.appendRunEvents = this.#sharedState.appendRunEvents;
    this.readRunEvents = this.#sharedState.readRunEvents;
    this.getValue = this.#sharedState.getValue;
    this.setValueIf = this.#sharedState.setValueIf;
    this.signal = this.#signals.signal;
  }

  async createRun(input: RunRecordInput, writeOptions?: WriteRunOptions): Promise<RunRecord> {
    await this.#ensureDirs();
    const path = this.#runPath(input.id);
    const writeId = writeIdOf(writeOptions);
    return withFileLock(`${path}.lock`, async () => {
      const current = await this.#readRun(input.id);
      if (ours(current, 1, writeId)) return current!;
      if (current) throw new RunConflictError({ runId: input.id });
      const now = this.#clock.now();
      const record = stampRecord(input, 1, now, writeId, now);
      await atomicWrite(path, JSON.stringify(record), this.#fsync);
      return record;
    });
  }

  getRun(id: string): Promise<RunRecord | undefined> {
    return this.#readRun(id);
  }

  updateRun(
    id: string,
    expectedVersion: number,
    input: RunRecordInput,
    writeOptions?: WriteRunOptions,
  ): Promise<RunRecord> {
    return this.#writeRun(id, expectedVersion, input, writeOptions);
  }

  commitRun(
    id: string,
    expectedVersion: number,
    input: RunRecordInput,
    append: SessionAppend,
    writeOptions?: WriteRunOptions,
  ): Promise<RunRecord> {
    return this.#writeRun(id, expectedVersion, input, writeOptions, append);
  }

  async listRuns(listOptions: ListRunsOptions = {}): Promise<RunRecord[]> {
    await this.#ensureDirs();
    const names = (await readdir(this.#runsDir)).filter((name) => name.endsWith('.json'));
    const records: RunRecord[] = [];
    for (const name of names) {
      try {
        const record = withoutCommitId(await readRunFile(join(this.#runsDir, name), idOfFile(name)));
        if (record) records.push(record);
      } catch (error) {
        if (!StoredRunInvalidError.isInstance(error)) throw error;
        this.#onWarning(skippedRunWarning(error));
      }
    }
    return listNewestFirst(records, listOptions);
  }

  async queryRuns(query?: RunQuery): Promise<RunQueryPage> {
    const normalized = normalizeRunQuery(query);
    await this.#ensureDirs();
    return this.#runIndex.page(normalized);
  }

  async deleteRun(id: string): Promise<void> {
    await rm(this.#runPath(id), { force: true });
  }

  async pruneRuns({ olderThanMs = this.#retentionMs }: PruneRunsOptions = {}): Promise<{ deleted: number }> {
    const pruned = await this.#prune(olderThanMs);
    await this.#sharedState.pruneExpired();
    return pruned;
  }

  async getItems(sessionId: string, limit?: number): Promise<ChatMessage[]> {
    const { items } = await this.#readSession(sessionId);
    return limit === undefined ? items : items.slice(Math.max(0, items.length - limit));
  }

  async addItems(sessionId: string, items: readonly ChatMessage[], options: AddItemsOptions = {}) {
    await this.#withSession(sessionId, async (session) => {
      const key = options.idempotencyKey;
      if (key !== undefined) {
        if (session.keys.includes(key)) return;
        session.keys.push(key);
      }
      session.items.push(...items);
      await this.#writeSession(sessionId, session);
    });
  }

  popItem(sessionId: string): Promise<ChatMessage | undefined> {
    return this.#withSession(sessionId, async (session) => {
      const item = session.items.pop();
      if (item !== undefined) await this.#writeSession(sessionId, session);
      return item;
    });
  }

  async clearSession(sessionId: string): Promise<void> {
    await this.#withSession(sessionId, () => rm(this.#sessionPath(sessionId), { force: true }));
  }

  async onSignal(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    checkOnSignal(channel, listener);
    // A listener that throws is reported to this store's onWarning, not the first store's of the folder.
    const unsubscribe = await this.#signals.onSignal(channel, (message) =>
      deliverSignal([listener], channel, message, this.#onWarning),
    );
    const own = async () => {
      this.#subscriptions.delete(own);
      await unsubscribe();
    };
    this.#subscriptions.add(own);
    return own;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#subscriptions].map((unsubscribe) => unsubscribe()));
  }

  #ensureDirs(): Promise<unknown> {
    this.#ready ??= Promise.all([
      mkdir(this.#runsDir, { recursive: true }),
      mkdir(this.#sessionsDir, { recursive: true }),
    ]);
    return this.#ready;
  }

  #runPath(id: string): string {
    return join(this.#runsDir, `${fileName(id)}.json`);
  }

  #sessionPath(id: string): string {
    return join(this.#sessionsDir, `${fileName(id)}.json`);
  }

  #readStoredRun(id: string): Promise<StoredRun | undefined> {
    return readRunFile(this.#runPath(id), id) as Promise<StoredRun | undefined>;
  }

  async #readRun(id: string): Promise<RunRecord | undefined> {
    return withoutCommitId(await this.#readStoredRun(id));
  }

  async #readSession(id: string): Promise<SessionFile> {
    const text = readText(this.#sessionPath(id));
    const session = text === undefined ? { items: [], keys: [] } : (JSON.parse(text) as SessionFile);
    const { pending } = session;
    // A pending commit whose record was never written leaves its items out of the session.
    if (pending && (await this.#readStoredRun(pending.runId))?.commitId !== pending.commitId) {
      session.items.splice(pending.at, pending.count);
    }
    delete session.pending;
    return session;
  }

  async #withSession<T>(id: string, fn: (session: SessionFile) => Promise<T>): Promise<T> {
    await this.#ensureDirs();
    const path = this.#sessionPath(id);
    return withFileLock(`${path}.lock`, () => this.#readSession(id).then(fn));
  }

  #writeSession(id: string, session: SessionFile): Promise<void> {
    return atomicWrite(this.#sessionPath(id), JSON.stringify(session), this.#fsync);
  }

  // A version-checked write under the run's lock. With `append` (`commitRun`) the session's lock is taken
  // too (always the run's first: `updateRun` and `addItems` each take only one) and the items are marked
  // pending until the record naming their commit is written, so a crash between the two undoes them.
  async #writeRun(
    id: string,
    expectedVersion: number,
    input: RunRecordInput,
    writeOptions: WriteRunOptions | undefined,
    append?: SessionAppend,
  ): Promise<RunRecord> {
    await this.#ensureDirs();
    const path = this.#runPath(id);
    const writeId = writeIdOf(writeOptions);
    const written = await withFileLock(`${path}.lock`, async () => {
      const current = await this.#readStoredRun(id);
      if (ours(current, expectedVersion + 1, writeId)) return withoutCommitId(current)!;
      if (!current || current.version !== expectedVersion) {
        throw new RunConflictError({ runId: id, expectedVersion });
      }
      const record = stampRecord(input, expectedVersion + 1, current.createdAt, writeId, this.#clock.now());
      if (!append) {
        // The last commit's id stays: a session may still name it as pending.
        const stored: StoredRun = current.commitId ? { ...record, commitId: current.commitId } : record;
        await atomicWrite(path, JSON.stringify(stored), this.#fsync);
        return record;
      }
      await this.#appendPending(id, path, record, append);
      return record;
    });
    if (isFinished(written.status)) this.#pruneOnWrite();
    return written;
  }

  // The session's items marked pending, then the run's record naming their commit, then the items kept.
  async #appendPending(id: string, path: string, record: RunRecord, { sessionId, items }: SessionAppend) {
    const commitId = randomUUID();
    await this.#withSession(sessionId, async (session) => {
      const pending = { runId: id, commitId, at: session.items.length, count: items.length };
      session.items.push(...items);
      await this.#writeSession(sessionId, { ...session, pending });
      await atomicWrite(path, JSON.stringify({ ...record, commitId }), this.#fsync);
      await this.#writeSession(sessionId, session);
    });
  }

  async #prune(olderThanMs: number): Promise<{ deleted: number }> {
    await this.#ensureDirs();
    const cutoff = this.#clock.now() - olderThanMs;
    let deleted = 0;
    for (const name of (await readdir(this.#runsDir)).filter((file) => file.endsWith('.json'))) {
      const path = join(this.#runsDir, name);
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
  }
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
