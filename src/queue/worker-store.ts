import type { Store } from '../agent/durable/store.js';
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

/**
 * Records that the run failed for good (version-checked; a run another worker now owns is left alone, and
 * a run already completed or failed keeps its outcome). Answers whether it wrote.
 */
export async function markFailed(store: Store, runId: string, error: unknown): Promise<boolean> {
  const record = await store.getRun(runId);
  if (!record || record.status === 'completed' || record.status === 'failed') return false;
  const { version, createdAt: _createdAt, updatedAt: _updatedAt, ...input } = record;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  await store.updateRun(runId, version, { ...input, status: 'failed', error: message });
  return true;
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
