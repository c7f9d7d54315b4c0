import type { RunQuery, RunSortKey, RunSummary } from '../agent/durable/run-query.js';
import type { RunStatus } from '../agent/durable/store.js';
import { StoreInputError } from './store-errors.js';

const STATUSES: readonly RunStatus[] = ['running', 'interrupted', 'completed', 'failed'];
const SORT_KEYS: readonly RunSortKey[] = ['createdAt', 'durationMs', 'tokens', 'costUsd'];
const MAX_LIMIT = 500;

/** Where a page starts: after the run with this sort value and id. */
export interface RunCursor {
  /** The sort value of the last run of the previous page. */
  key: number;
  /** Its id (ties of the sort value are ordered by id, in the same direction). */
  id: string;
}

/** A `RunQuery` checked once, with its defaults: what every store's `queryRuns` reads. */
export interface NormalizedRunQuery {
  /** The statuses asked for; undefined for all. */
  statuses: readonly RunStatus[] | undefined;
  agentName: string | undefined;
  sessionId: string | undefined;
  tenant: string | undefined;
  model: string | undefined;
  createdFrom: number | undefined;
  createdTo: number | undefined;
  /** Lower-cased, as the index keeps the text. */
  text: string | undefined;
  sort: RunSortKey;
  order: 'asc' | 'desc';
  limit: number;
  cursor: RunCursor | undefined;
}

function refuse(field: string, rule: string): never {
  throw new StoreInputError({ operation: 'queryRuns', field, rule });
}

function optionalString(query: RunQuery, field: 'agentName' | 'sessionId' | 'tenant' | 'model' | 'text') {
  const value = query[field];
  if (value !== undefined && (typeof value !== 'string' || value === '')) {
    refuse(field, 'must be a non-empty string');
  }
  return value;
}

function optionalTime(query: RunQuery, field: 'createdFrom' | 'createdTo'): number | undefined {
  const value = query[field];
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
    refuse(field, 'must be a finite number (epoch milliseconds)');
  }
  return value;
}

/** Checks `query` (naming the field and rule in a `StoreInputError`) and fills in the defaults. */
export function normalizeRunQuery(query: RunQuery = {}): NormalizedRunQuery {
  if (typeof query !== 'object' || query === null) refuse('query', 'must be an object');
  let statuses: readonly RunStatus[] | undefined;
  if (query.status !== undefined) {
    statuses = typeof query.status === 'string' ? [query.status] : query.status;
    const valid = Array.isArray(statuses) && statuses.length > 0;
    if (!valid || statuses.some((status) => !STATUSES.includes(status))) {
      refuse('status', `must be one of ${STATUSES.join(', ')} (or a non-empty array of them)`);
    }
  }
  const { sort = 'createdAt', order = 'desc', limit = 50 } = query;
  if (!SORT_KEYS.includes(sort)) refuse('sort', `must be one of ${SORT_KEYS.join(', ')}`);
  if (order !== 'asc' && order !== 'desc') refuse('order', "must be 'asc' or 'desc'");
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    refuse('limit', `must be an integer from 1 to ${MAX_LIMIT}, got ${String(limit)}`);
  }
  const text = optionalString(query, 'text');
  return {
    statuses,
    agentName: optionalString(query, 'agentName'),
    sessionId: optionalString(query, 'sessionId'),
    tenant: optionalString(query, 'tenant'),
    model: optionalString(query, 'model'),
    createdFrom: optionalTime(query, 'createdFrom'),
    createdTo: optionalTime(query, 'createdTo'),
    text: text?.toLowerCase(),
    sort,
    order,
    limit,
    cursor: query.cursor === undefined ? undefined : decodeRunCursor(query.cursor, sort, order),
  };
}

/**
 * The value a run is sorted by: its tokens' total for `tokens`, -1 for a `costUsd` that is not known
 * (such runs come last in a descending order).
 */
export function runSortValue(summary: RunSummary, sort: RunSortKey): number {
  if (sort === 'tokens') return summary.tokens.total;
  if (sort === 'costUsd') return summary.costUsd ?? -1;
  return summary[sort];
}

/** The opaque `nextCursor` after `summary` in a list sorted by `sort` and `order`. */
export function encodeRunCursor(cursor: RunCursor, sort: RunSortKey, order: 'asc' | 'desc'): string {
  return Buffer.from(JSON.stringify([cursor.key, cursor.id, sort, order])).toString('base64url');
}

function decodeRunCursor(text: unknown, sort: RunSortKey, order: 'asc' | 'desc'): RunCursor {
  if (typeof text !== 'string' || text === '') refuse('cursor', 'must be the nextCursor of a previous page');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    refuse('cursor', 'must be the nextCursor of a previous page (it does not decode)');
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    typeof parsed[0] !== 'number' ||
    !Number.isFinite(parsed[0]) ||
    typeof parsed[1] !== 'string'
  ) {
    refuse('cursor', 'must be the nextCursor of a previous page (it does not decode)');
  }
  if (parsed[2] !== sort || parsed[3] !== order) {
    refuse('cursor', `was made for sort ${String(parsed[2])} ${String(parsed[3])}, not ${sort} ${order}`);
  }
  return { key: parsed[0], id: parsed[1] };
}
