import type { RunQuery, RunQueryPage, RunQueryStore } from '../agent/durable/run-query.js';
import type { RunStore } from '../agent/durable/store.js';
import { indexRun, pageOfRuns } from './page-of-runs.js';
import { normalizeRunQuery } from './run-query-input.js';

/**
 * One page of run summaries of `store`: from the store's own index (`store.queryRuns`, which the bundled
 * stores keep) or, for a store without one, by reading every run with `listRuns` and filtering them here
 * (as slow as the store is large). A bad query is a `StoreInputError` naming the field (`limit`, `cursor`, ...).
 */
export async function queryRuns(
  store: RunStore & Partial<RunQueryStore>,
  query: RunQuery = {},
): Promise<RunQueryPage> {
  const normalized = normalizeRunQuery(query);
  if (typeof store.queryRuns === 'function') return store.queryRuns(query);
  const records = await store.listRuns({ limit: Number.MAX_SAFE_INTEGER });
  return pageOfRuns(records.map(indexRun), normalized);
}
