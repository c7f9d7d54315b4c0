import { closeSync, fdatasync, ftruncateSync, openSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RunEventLogStore, SharedValueStore, StoredRunEvent } from '../agent/durable/store.js';
import type { Clock } from '../core/clock.js';
import { asWriteError, atomicWrite, writeFully } from './atomic-write.js';
import { withFileLock } from './file-lock.js';
import {
  checkAppendRunEvents,
  checkGetValue,
  checkReadRunEvents,
  checkSetValueIf,
} from './shared-state-checks.js';
import { RunEventGapError } from './store-errors.js';
import { readRange } from './store-utils.js';

const datasync = promisify(fdatasync);

/** What the event logs and values need from `fileStore`. */
export interface FileSharedStateOptions {
  /** The store's directory: logs go in `events/`, values in `values/`. */
  dir: string;
  /** fsync every write. */
  fsync: boolean;
  /** An id as a safe file name. */
  fileName: (id: string) => string;
  /** Where expiry decisions read the time. */
  clock: Clock;
}

/** `RunEventLogStore` and `SharedValueStore` in files, plus `pruneExpired`. */
export interface FileSharedState extends RunEventLogStore, SharedValueStore {
  /** Deletes expired event logs and values (reads already treat them as absent). */
  pruneExpired(): Promise<void>;
}

/** One line of an event log file: an event (`id`, `data`), or only a new expiry (a retried append's). */
interface LogLine {
  id?: number;
  data?: string;
  /** When the log expires, as of this line (the last line's counts). */
  expiresAt?: number;
}

/** What a log file holds, as read. */
interface LogFile {
  events: string[];
  expiresAt: number | undefined;
  /** Bytes of whole lines (a line torn by a crash mid-append is not counted). */
  size: number;
  /** The file's size and modification time when read (`-1` when absent): the cache's key. */
  stamp?: string;
}

interface StoredValueFile {
  version: number;
  value: string;
  expiresAt?: number;
}

function readLog(path: string): LogFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { events: [], expiresAt: undefined, size: 0 };
    throw error;
  }
  const whole = text.slice(0, text.lastIndexOf('\n') + 1);
  const events: string[] = [];
  let expiresAt: number | undefined;
  for (const line of whole.split('\n')) {
    if (line === '') continue;
    const parsed = JSON.parse(line) as LogLine;
    if (parsed.id !== undefined) events[parsed.id] = parsed.data ?? '';
    expiresAt = parsed.expiresAt;
  }
  return { events, expiresAt, size: Buffer.byteLength(whole) };
}

// A file's size and modification time: when both are unchanged, so is the file.
function stampOf(path: string): string {
  try {
    const { size, mtimeMs } = statSync(path);
    return `${size}:${mtimeMs}`;
  } catch {
    return '-1';
  }
}

/**
 * Event logs as JSON-lines files (`events/<run>.jsonl`, one event per line, appended under the file's
 * lock) and values as small JSON files (`values/<key>.json`, replaced atomically under their lock). A log
 * expires with its last line's `expiresAt`, so a refresh appends one line instead of rewriting the file.
 * Reads take no lock: an append only adds whole lines at the end, and a torn last line is ignored.
 */
export function createFileSharedState({
  dir,
  fsync,
  fileName,
  clock,
}: FileSharedStateOptions): FileSharedState {
  const expired = (expiresAt: number | undefined) => expiresAt !== undefined && expiresAt <= clock.now();
  const eventsDir = join(dir, 'events');
  const valuesDir = join(dir, 'values');
  let ready: Promise<unknown> | undefined;
  const ensureDirs = () => {
    ready ??= Promise.all([mkdir(eventsDir, { recursive: true }), mkdir(valuesDir, { recursive: true })]);
    return ready;
  };
  const logPath = (runId: string) => join(eventsDir, `${fileName(runId)}.jsonl`);
  const valuePath = (key: string) => join(valuesDir, `${fileName(key)}.json`);
  // The last log read per file, by its size: an append of a streaming run does not re-read the whole log.
  const known = new Map<string, LogFile>();
  const readLogCached = (path: string): LogFile => {
    const cached = known.get(path);
    const stamp = stampOf(path);
    if (cached && cached.stamp === stamp) return cached;
    const read = { ...readLog(path), stamp };
    if (known.size > 1000) known.clear();
    known.set(path, read);
    return read;
  };
  const readValue = (key: string): StoredValueFile | undefined => {
    try {
      const stored = JSON.parse(readFileSync(valuePath(key), 'utf8')) as StoredValueFile;
      return expired(stored.expiresAt) ? undefined : stored;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };

  return {
    async appendRunEvents(runId, firstId, appended, options) {
      const ttlMs = checkAppendRunEvents(runId, firstId, appended, options);
      await ensureDirs();
      const path = logPath(runId);
      await withFileLock(`${path}.lock`, async () => {
        let log = readLogCached(path);
        const stale = expired(log.expiresAt);
        if (stale) log = { events: [], expiresAt: undefined, size: 0 };
        const nextId = log.events.length;
        if (firstId > nextId) throw new RunEventGapError({ runId, firstId, nextId });
        const expiresAt = ttlMs === undefined ? log.expiresAt : clock.now() + ttlMs;
        const fresh = appended.slice(nextId - firstId);
        const lines = fresh.map((data, index) => JSON.stringify({ id: nextId + index, data, expiresAt }));
        if (lines.length === 0 && ttlMs !== undefined && nextId > 0)
          lines.push(JSON.stringify({ expiresAt }));
        if (lines.length === 0) return;
        const text = `${lines.join('\n')}\n`;
        // An expired log starts over; a torn last line (a crash mid-append) is cut off before appending.
        let fd: number;
        try {
          fd = openSync(path, 'a+');
        } catch (error) {
          throw asWriteError(error, path);
        }
        try {
          ftruncateSync(fd, log.size);
          writeFully(fd, text, path);
          if (fsync) await datasync(fd);
        } catch (error) {
          // A full disk took part of the lines: cut them off again, so the log ends where it did.
          ftruncateSync(fd, log.size);
          throw asWriteError(error, path);
        } finally {
          closeSync(fd);
        }
        known.set(path, {
          events: [...log.events, ...fresh],
          expiresAt,
          size: log.size + Buffer.byteLength(text),
          stamp: stampOf(path),
        });
      });
    },
    async readRunEvents(runId, afterId, limit) {
      checkReadRunEvents(runId, afterId, limit);
      const log = readLogCached(logPath(runId));
      if (expired(log.expiresAt)) return [];
      const [start, end] = readRange(log.events.length, afterId, limit);
      const read: StoredRunEvent[] = [];
      for (let id = start; id < end; id++) read.push({ id, data: log.events[id]! });
      return read;
    },
    async getValue(key) {
      checkGetValue(key);
      const stored = readValue(key);
      return stored ? { value: stored.value, version: stored.version } : { value: undefined, version: 0 };
    },
    async setValueIf(key, version, value, options) {
      const ttlMs = checkSetValueIf(key, version, value, options);
      await ensureDirs();
      const path = valuePath(key);
      return withFileLock(`${path}.lock`, async () => {
        if ((readValue(key)?.version ?? 0) !== version) return false;
        if (value === undefined) await rm(path, { force: true });
        else {
          const stored: StoredValueFile = {
            version: version + 1,
            value,
            ...(ttlMs !== undefined && { expiresAt: clock.now() + ttlMs }),
          };
          await atomicWrite(path, JSON.stringify(stored), fsync);
        }
        return true;
      });
    },
    async pruneExpired() {
      await ensureDirs();
      for (const name of await readdir(eventsDir)) {
        if (!name.endsWith('.jsonl')) continue;
        const path = join(eventsDir, name);
        await withFileLock(`${path}.lock`, async () => {
          if (!expired(readLog(path).expiresAt)) return;
          await rm(path, { force: true });
          known.delete(path);
        });
      }
      for (const name of await readdir(valuesDir)) {
        if (!name.endsWith('.json')) continue;
        const path = join(valuesDir, name);
        const key = decodeURIComponent(name.slice(0, -'.json'.length));
        await withFileLock(`${path}.lock`, async () => {
          if (readValue(key) === undefined) await rm(path, { force: true });
        });
      }
    },
  };
}
