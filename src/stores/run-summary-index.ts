import type { RunQueryPage, RunSummary } from '../agent/durable/run-query.js';
import type { RunRecord, RunStatus } from '../agent/durable/store.js';
import { runSearchText, summarizeRun } from '../agent/durable/summarize-run.js';
import { encodeRunCursor, type NormalizedRunQuery, type RunCursor, runSortValue } from './run-query-input.js';

interface IndexedRun {
  summary: RunSummary;
  /** The lower-cased messages text `RunQuery.text` searches. */
  text: string;
}

/** Runs per status, all at 0. */
export function emptyRunCounts(): Record<RunStatus, number> {
  return { running: 0, interrupted: 0, completed: 0, failed: 0 };
}

/**
 * The run summaries of an in-process store (memory, file) and the scan fallback of `queryRuns`: kept in
 * step with the records by the store's writes, answered by a filter and sort over all of them (a store in
 * one process holds few enough runs for that; Redis and PostgreSQL keep real indexes).
 */
export class RunSummaryIndex {
  readonly #runs = new Map<string, IndexedRun>();
  readonly #counts = emptyRunCounts();

  /** Indexes `record` (replacing its previous summary). */
  set(record: RunRecord): void {
    this.delete(record.id);
    const summary = summarizeRun(record);
    this.#runs.set(record.id, { summary, text: runSearchText(record) });
    this.#counts[summary.status] += 1;
  }

  /** Drops the run `id` from the index (nothing when absent). */
  delete(id: string): void {
    const indexed = this.#runs.get(id);
    if (!indexed) return;
    this.#runs.delete(id);
    this.#counts[indexed.summary.status] -= 1;
  }

  /** Drops every run. */
  clear(): void {
    this.#runs.clear();
    Object.assign(this.#counts, emptyRunCounts());
  }

  /** One page of the runs matching `query`, and the counts per status of all runs. */
  query(query: NormalizedRunQuery): RunQueryPage {
    const { sort, order, limit, cursor } = query;
    const sign = order === 'asc' ? 1 : -1;
    const matching: Array<{ summary: RunSummary; key: number }> = [];
    for (const run of this.#runs.values()) {
      if (!matches(run, query)) continue;
      const key = runSortValue(run.summary, sort);
      if (cursor && sign * compare(key, run.summary.id, cursor) <= 0) continue;
      matching.push({ summary: run.summary, key });
    }
    matching.sort((a, b) => sign * compare(a.key, a.summary.id, { key: b.key, id: b.summary.id }));
    const page = matching.slice(0, limit);
    const last = page.at(-1);
    return {
      runs: page.map(({ summary }) => structuredClone(summary)),
      ...(last &&
        matching.length > limit && {
          nextCursor: encodeRunCursor({ key: last.key, id: last.summary.id }, sort, order),
        }),
      counts: { ...this.#counts },
    };
  }
}

// Ascending order of (sort value, id).
function compare(key: number, id: string, other: RunCursor): number {
  if (key !== other.key) return key < other.key ? -1 : 1;
  return id === other.id ? 0 : id < other.id ? -1 : 1;
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
