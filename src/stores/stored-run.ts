import type { RunRecord, RunStatus } from '../agent/durable/store.js';
import { StoredRunInvalidError } from './store-errors.js';

const STATUSES: readonly RunStatus[] = ['running', 'interrupted', 'completed', 'failed'];

/** Where a stored run was read from, for the error that names it. */
export interface StoredRunSource {
  runId: string;
  key: string;
}

/** Parses a stored run's JSON text, or throws `StoredRunInvalidError` naming the run and the problem. */
export function parseStoredRun(text: string, source: StoredRunSource): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new StoredRunInvalidError({
      ...source,
      problem: `invalid or truncated JSON (${(error as Error).message})`,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new StoredRunInvalidError({ ...source, problem: 'not a JSON object' });
  }
  return value as Record<string, unknown>;
}

/**
 * Checks the fields every reader relies on and answers the record; a missing or mistyped one is a
 * `StoredRunInvalidError` naming the field, so one bad record never surfaces as a `TypeError` elsewhere.
 */
export function checkStoredRun(value: Record<string, unknown>, source: StoredRunSource): RunRecord {
  const problem = (text: string) => new StoredRunInvalidError({ ...source, problem: text });
  if (typeof value.id !== 'string') throw problem('missing "id"');
  if (typeof value.agentName !== 'string') throw problem('missing "agentName"');
  if (!STATUSES.includes(value.status as RunStatus)) {
    throw problem(`"status" is ${JSON.stringify(value.status)}, not one of ${STATUSES.join(', ')}`);
  }
  if (typeof value.state !== 'object' || value.state === null) throw problem('missing "state"');
  if (!Array.isArray(value.interruptions)) throw problem('missing "interruptions" (an array)');
  for (const name of ['version', 'createdAt', 'updatedAt'] as const) {
    if (!Number.isFinite(value[name])) throw problem(`missing "${name}" (a number)`);
  }
  return value as unknown as RunRecord;
}

/** Whether a run is finished: kept only for the store's retention after its last update. */
export function isFinished(status: RunStatus): boolean {
  return status === 'completed' || status === 'failed';
}

/** Builds the warning `listRuns` gives for a record it skipped. */
export function skippedRunWarning(error: StoredRunInvalidError): string {
  return `listRuns skipped a stored run: ${error.message}`;
}
