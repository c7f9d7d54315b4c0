import type { RunQueryPage, RunSummary } from '../agent/durable/run-query.js';
import type { RunRecord, RunStatus } from '../agent/durable/store.js';
import { runSearchText, summarizeRun } from '../agent/durable/summarize-run.js';
import { encodeRunCursor, type NormalizedRunQuery, type RunCursor, runSortValue } from './run-query-input.js';

/** A run as an in-process index keeps it: its summary and the text `RunQuery.text` searches. */
export interface IndexedRun {
  summary: RunSummary;
  /** The lower-cased messages text (`runSearchText`). */
  text: string;
}

/** What an in-process index keeps of `record`, computed once per write. */
export function indexRun(record: RunRecord): IndexedRun {
  return { summary: summarizeRun(record), text: runSearchText(record) };
}

/** Runs per status, all at 0. */
export function emptyRunCounts(): Record<RunStatus, number> {
  return { running: 0, interrupted: 0, completed: 0, failed: 0 };
}

/**
 * One page of the runs matching `query` and the counts per status of all `runs`: one filter and sort over
 * every run, the index of the in-process stores (memory, file) and of the `queryRuns` scan fallback. A
 * store in one process holds few enough runs for that; Redis and PostgreSQL answer from real indexes.
 */
export function pageOfRuns(runs: Iterable<IndexedRun>, query: NormalizedRunQuery): RunQueryPage {
  const { sort, order, limit, cursor } = query;
  const sign = order === 'asc' ? 1 : -1;
  const counts = emptyRunCounts();
  const matching: RunCursor[] = [];
  const summaries = new Map<string, RunSummary>();
  for (const run of runs) {
    counts[run.summary.status] += 1;
    if (!matches(run, query)) continue;
    const position = { key: runSortValue(run.summary, sort), id: run.summary.id };
    if (cursor && sign * compare(position, cursor) <= 0) continue;
    matching.push(position);
    summaries.set(position.id, run.summary);
  }
  matching.sort((a, b) => sign * compare(a, b));
  const page = matching.slice(0, limit);
  const last = page.at(-1);
  return {
    runs: page.map(({ id }) => structuredClone(summaries.get(id)!)),
    ...(last && matching.length > limit && { nextCursor: encodeRunCursor(last, sort, order) }),
    counts,
  };
}

// Ascending order of (sort value, id).
function compare(a: RunCursor, b: RunCursor): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.id === b.id ? 0 : a.id < b.id ? -1 : 1;
}

function matches({ summary, text }: IndexedRun, query: NormalizedRunQuery): boolean {
  return (
    (query.statuses === undefined || query.statuses.includes(summary.status)) &&
    (query.agentName === undefined || summary.agentName === query.agentName) &&
    (query.sessionId === undefined || summary.sessionId === query.sessionId) &&
    (query.tenant === undefined || summary.tenant === query.tenant) &&
    (query.model === undefined || summary.model === query.model) &&
    (query.createdFrom === undefined || summary.createdAt >= query.createdFrom) &&
    (query.createdTo === undefined || summary.createdAt < query.createdTo) &&
    (query.text === undefined || text.includes(query.text))
  );
}
