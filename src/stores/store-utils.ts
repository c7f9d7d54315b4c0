import type { ListRunsOptions, RunRecord, RunRecordInput } from '../agent/durable/store.js';
import { SvcError } from '../transport/errors/svc-error.js';

/** A full record from its writable fields, a version and its creation time (now is the update time). */
export function stampRecord(input: RunRecordInput, version: number, createdAt: number): RunRecord {
  return { ...input, version, createdAt, updatedAt: Date.now() };
}

/** Newest first, filtered by status, at most `limit`. */
export function listNewestFirst(records: readonly RunRecord[], options: ListRunsOptions): RunRecord[] {
  const { status, limit = 100 } = options;
  return records
    .filter((record) => status === undefined || record.status === status)
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
    .slice(0, limit);
}

/** Loads an optional peer dependency, or says which package to install. */
export async function loadOptional<T>(name: string, load: () => Promise<T>, feature: string): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    throw new SvcError(`${feature} needs the optional package "${name}": npm install ${name}`, { cause });
  }
}
