import type { RunStatus } from './store.js';

/**
 * What the run inspector lists of a stored run: derived from its record when it is written, so a list of
 * many runs never reads their states.
 */
export interface RunSummary {
  /** The run id. */
  id: string;
  /** The agent that runs it. */
  agentName: string;
  /** Where the run stands. */
  status: RunStatus;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds of the last write. */
  updatedAt: number;
  /** `updatedAt - createdAt` for a finished run; the time so far for a running one at its last write. */
  durationMs: number;
  /** The session the run belongs to, if any. */
  sessionId?: string;
  /** Who the run belongs to (the web owner or the queue tenant), if known. */
  tenant?: string;
  /** The model that answered its last step, if any step finished. */
  model?: string;
  /** Tokens over all its steps. */
  tokens: { input: number; output: number; cached: number; total: number };
  /** Cost in US dollars over all its steps, when the model's price is known. */
  costUsd?: number;
  /** How many steps (model turns) it took. */
  steps: number;
  /** The first words of its first user message (at most 200 characters). */
  title?: string;
  /** Why it failed (when `failed`). */
  error?: string;
  /** The run this one was forked from, and the step it was forked at. */
  forkedFrom?: { runId: string; step: number };
}

/** Orders of `queryRuns`. */
export type RunSortKey = 'createdAt' | 'durationMs' | 'tokens' | 'costUsd';

/** The filter, order and page of `queryRuns`. */
export interface RunQuery {
  /** Only runs with one of these statuses. */
  status?: RunStatus | readonly RunStatus[];
  /** Only runs of this agent. */
  agentName?: string;
  /** Only runs of this session. */
  sessionId?: string;
  /** Only runs of this tenant (owner). */
  tenant?: string;
  /** Only runs whose last step was answered by this model. */
  model?: string;
  /** Only runs created at or after this epoch millisecond. */
  createdFrom?: number;
  /** Only runs created before this epoch millisecond. */
  createdTo?: number;
  /** Only runs whose messages contain this text (case-insensitive). */
  text?: string;
  /** The order. @default 'createdAt' */
  sort?: RunSortKey;
  /** @default 'desc' */
  order?: 'asc' | 'desc';
  /** At most this many per page (1-500). @default 50 */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

/** One page of `queryRuns`. */
export interface RunQueryPage {
  /** The runs of this page, in the asked order. */
  runs: RunSummary[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
  /** How many runs of the whole store have each status (the filter's status aside: live counts for tabs). */
  counts: Record<RunStatus, number>;
}

/** A store that answers filtered, sorted, paged lists of run summaries from an index it keeps. */
export interface RunQueryStore {
  /** One page of run summaries matching `query`. */
  queryRuns(query?: RunQuery): Promise<RunQueryPage>;
}
