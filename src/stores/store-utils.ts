import { randomUUID } from 'node:crypto';
import type { ListRunsOptions, RunRecord, RunRecordInput } from '../agent/durable/store.js';

/**
 * A full record from its writable fields, a version, its creation time and the id of the write (`now`, the
 * store's clock, is the update time). A `writeId` left in `input` by a caller who spread a read record is replaced.
 */
export function stampRecord(
  input: RunRecordInput,
  version: number,
  createdAt: number,
  writeId: string,
  now: number = Date.now(),
): RunRecord {
  return { ...input, version, createdAt, updatedAt: now, writeId };
}

/** A fresh id for one write, unless the caller named it (to retry it). */
export function writeIdOf(options: { writeId?: string } | undefined): string {
  return options?.writeId ?? randomUUID();
}

/** Newest first, filtered by status, at most `limit`. */
export function listNewestFirst(records: readonly RunRecord[], options: ListRunsOptions): RunRecord[] {
  const { status, limit = 100 } = options;
  return records
    .filter((record) => status === undefined || record.status === status)
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
    .slice(0, limit);
}

// Pruning on write runs at most this often per store instance: a cheap indexed delete, not a per-write cost.
const PRUNE_EVERY_MS = 60_000;

/**
 * Runs `prune` in the background after a finished run's write, at most once a minute (and on the first
 * such write), so finished runs past their retention disappear without a scheduler. Its failure is only
 * a warning: the next write or `pruneRuns()` tries again.
 */
export function createPruneOnWrite(
  prune: () => Promise<unknown>,
  onWarning: (message: string) => void,
  clockNow: () => number = Date.now,
): () => void {
  let last = Number.NEGATIVE_INFINITY;
  let running = false;
  return () => {
    const now = clockNow();
    if (running || now - last < PRUNE_EVERY_MS) return;
    last = now;
    running = true;
    prune()
      .catch((error: unknown) => onWarning(`pruning finished runs failed: ${(error as Error).message}`))
      .finally(() => {
        running = false;
      });
  };
}

/** The index range `[start, end)` of the events `readRunEvents(afterId, limit)` answers from a log of `length`. */
export function readRange(
  length: number,
  afterId: number | undefined,
  limit: number | undefined,
): [number, number] {
  const start = Math.min(length, afterId === undefined ? 0 : afterId + 1);
  return [start, limit === undefined ? length : Math.min(length, start + limit)];
}

/**
 * Calls each listener with `message`, each in its own try: one that throws (or rejects) is reported to
 * `onWarning` and the others still get the message.
 */
export function deliverSignal(
  listeners: Iterable<(message: string) => void>,
  channel: string,
  message: string,
  onWarning: (message: string) => void,
): void {
  for (const listener of [...listeners]) {
    try {
      const result = listener(message) as unknown;
      if (result instanceof Promise) {
        result.catch((error: unknown) => warnListenerFailed(channel, error, onWarning));
      }
    } catch (error) {
      warnListenerFailed(channel, error, onWarning);
    }
  }
}

function warnListenerFailed(channel: string, error: unknown, onWarning: (message: string) => void): void {
  onWarning(`a listener of signal channel "${channel}" threw: ${(error as Error)?.message ?? String(error)}`);
}

/**
 * How often a store checks its signal connection (a PING, a `SELECT 1`): a half-open connection never
 * reports an error itself. Twice the operation timeout, within 1 s and 30 s: a dead listener is found
 * within seconds, and an idle one costs a round trip every 20 s with the default timeout.
 */
export function signalHealthCheckEveryMs(commandTimeoutMs: number): number {
  return Math.min(30_000, Math.max(1_000, commandTimeoutMs * 2));
}
