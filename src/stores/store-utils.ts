import { randomUUID } from 'node:crypto';
import type { ListRunsOptions, RunRecord, RunRecordInput } from '../agent/durable/store.js';

/**
 * A full record from its writable fields, a version, its creation time and the id of the write (now is
 * the update time). A `writeId` left in `input` by a caller who spread a read record is replaced.
 */
export function stampRecord(
  input: RunRecordInput,
  version: number,
  createdAt: number,
  writeId: string,
): RunRecord {
  return { ...input, version, createdAt, updatedAt: Date.now(), writeId };
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
): () => void {
  let last = Number.NEGATIVE_INFINITY;
  let running = false;
  return () => {
    const now = Date.now();
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
