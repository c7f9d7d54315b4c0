import type { Store } from '../agent/durable/store.js';

/**
 * The store as a worker's runs see it: a run that fails is recorded as still `running` (with its error),
 * since the worker may retry it; `markFailed` records the failure once the worker gives up. So
 * `waitUntilFinished` never mistakes a retried run for a failed one.
 */
export function deferFailures(store: Store): Store {
  return {
    ...bindAll(store),
    updateRun(id, version, record) {
      return store.updateRun(
        id,
        version,
        record.status === 'failed' ? { ...record, status: 'running' } : record,
      );
    },
  };
}

/** Records that the run failed for good (version-checked; a run another worker now owns is left alone). */
export async function markFailed(store: Store, runId: string, error: unknown): Promise<void> {
  const record = await store.getRun(runId);
  if (!record || record.status === 'completed') return;
  const { version, createdAt: _createdAt, updatedAt: _updatedAt, ...input } = record;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  await store.updateRun(runId, version, { ...input, status: 'failed', error: message });
}

// Stores may be classes: copy their methods bound, so spreading keeps `this`.
function bindAll(store: Store): Store {
  return {
    createRun: store.createRun.bind(store),
    getRun: store.getRun.bind(store),
    updateRun: store.updateRun.bind(store),
    listRuns: store.listRuns.bind(store),
    deleteRun: store.deleteRun.bind(store),
    getItems: store.getItems.bind(store),
    addItems: store.addItems.bind(store),
    popItem: store.popItem.bind(store),
    clearSession: store.clearSession.bind(store),
    // A run's end is one atomic write only if the store's commitRun reaches it.
    ...(store.commitRun && { commitRun: store.commitRun.bind(store) }),
  };
}
