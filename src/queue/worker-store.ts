import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunRecord, Store, WriteRunOptions } from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors.js';
import { isTransient } from '../stores/is-transient.js';
import { WorkerClosedError } from './queue-errors.js';

/**
 * The store as a worker's runs see it: a run that fails is recorded as still `running` (with its error),
 * since the worker may retry it; `markFailed` records the failure once the worker gives up. So
 * `waitUntilFinished` never mistakes a retried run for a failed one.
 */
export function deferFailures(store: Store): Store {
  return {
    ...bindAll(store),
    updateRun(id, version, record, options) {
      return store.updateRun(
        id,
        version,
        record.status === 'failed' ? { ...record, status: 'running' } : record,
        options,
      );
    },
  };
}

/**
 * The store as one job of a worker sees it: once `signal` aborts (the worker was force-closed), every
 * write is refused, so the run's last checkpoint stays as it was (its calls in flight recorded as such)
 * for the worker that takes the run over, as after a crash.
 */
export function fenceWrites(store: Store, signal: AbortSignal): Store {
  const fenced: Record<string, unknown> = { ...bindAll(store) };
  for (const [key, method] of Object.entries(fenced)) {
    // Reads stay open; any other method (those a store adds later too) is a write.
    if (READS.has(key) || typeof method !== 'function') continue;
    fenced[key] = async (...args: unknown[]) => {
      if (signal.aborted) throw new WorkerClosedError();
      return (method as (...args: unknown[]) => unknown)(...args);
    };
  }
  return fenced as unknown as Store;
}

const READS = new Set(['getRun', 'listRuns', 'getItems', 'close']);

// The last write ids kept per run: a conflict is settled by the record's last write, one of the latest.
const OWN_WRITES_KEPT = 8;
// Runs whose write ids are kept: more than a worker runs at once, or retries soon after.
const MAX_RUNS_KEPT = 10_000;

/**
 * The store as this worker's runs write it, each run write under a write id the worker keeps (`ownWrites`,
 * the last few per run). A conflict is then settled by the record, not by time: a record last written
 * under one of them is this worker's own write (its reply was lost), any other write is another owner's.
 */
export function recordWrites(
  store: Store,
  ownWrites: Map<string, string[]>,
  highestVersions: Map<string, number>,
): Store {
  // The highest version this worker has seen its own write of: a record below it went back in time.
  const seen = (record: RunRecord) => {
    if (record.version > (highestVersions.get(record.id) ?? 0))
      highestVersions.set(record.id, record.version);
    if (highestVersions.size > MAX_RUNS_KEPT) highestVersions.delete(highestVersions.keys().next().value!);
    return record;
  };
  const own = (runId: string, options: WriteRunOptions | undefined): WriteRunOptions => {
    const writeId = options?.writeId ?? randomUUID();
    const ids = ownWrites.get(runId) ?? [];
    ids.push(writeId);
    if (ids.length > OWN_WRITES_KEPT) ids.shift();
    // Re-inserted last: the oldest run is forgotten first.
    ownWrites.delete(runId);
    ownWrites.set(runId, ids);
    if (ownWrites.size > MAX_RUNS_KEPT) ownWrites.delete(ownWrites.keys().next().value!);
    return { ...options, writeId };
  };
  const recorded: Store = {
    ...bindAll(store),
    createRun: (record, options) => store.createRun(record, own(record.id, options)).then(seen),
    updateRun: (id, version, record, options) =>
      store.updateRun(id, version, record, own(id, options)).then(seen),
  };
  if (store.commitRun) {
    const commitRun = store.commitRun.bind(store);
    recorded.commitRun = (id, version, record, append, options) =>
      commitRun(id, version, record, append, own(id, options)).then(seen);
  }
  return recorded;
}

/** Options of `markFailed`. */
export interface MarkFailedOptions {
  /** Tries of the write when the store is unreachable. @default 4 */
  attempts?: number;
  /** The wait before the second try, doubled before each further one. @default 250 */
  backoffMs?: number;
  /** Each failed try, before the next. */
  onError?: (error: unknown) => void;
}

/**
 * Records that the run failed for good (version-checked; a run another worker now owns is left alone, and
 * a run already completed or failed keeps its outcome). Answers whether it wrote. The write has one write
 * id across its tries: a try whose reply was lost (a reset, a timeout after the store applied it) is
 * recognised by the next, and a store unreachable for a moment is tried again, so the record does not
 * stay `running` after its job failed (the stranded-run check would run it again).
 */
export async function markFailed(
  store: Store,
  runId: string,
  error: unknown,
  { attempts = 4, backoffMs = 250, onError }: MarkFailedOptions = {},
): Promise<boolean> {
  const writeId = randomUUID();
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  for (let attempt = 1; ; attempt++) {
    try {
      const record = await store.getRun(runId);
      if (record?.writeId === writeId) return true;
      if (!record || record.status === 'completed' || record.status === 'failed') return false;
      const { version, createdAt: _createdAt, updatedAt: _updatedAt, writeId: _writeId, ...input } = record;
      try {
        await store.updateRun(runId, version, { ...input, status: 'failed', error: message }, { writeId });
      } catch (writeError) {
        // Another writer moved the run on (it owns it now), unless the write that conflicted was ours.
        if (!RunConflictError.isInstance(writeError)) throw writeError;
        return (await store.getRun(runId))?.writeId === writeId;
      }
      return true;
    } catch (failure) {
      if (attempt >= attempts || !isTransient(failure)) throw failure;
      onError?.(failure);
      await sleep(backoffMs * 2 ** (attempt - 1));
    }
  }
}

// Stores may be classes: copy their methods (those the store adds beyond the interface too) bound, so
// spreading keeps `this`.
function bindAll(store: Store): Store {
  const bound: Record<string, unknown> = {};
  for (
    let proto: object | null = store;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      const value = (store as unknown as Record<string, unknown>)[key];
      if (key === 'constructor' || key in bound || typeof value !== 'function') continue;
      bound[key] = value.bind(store);
    }
  }
  return bound as unknown as Store;
}
