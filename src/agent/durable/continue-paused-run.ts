import { isDeepStrictEqual } from 'node:util';
import type { RunResult } from '../run-result.js';
import type { RunState } from '../run-state.js';
import { DurableRun } from './durable-run.js';
import { type DurableLoop, drive } from './run-durably.js';
import type { RunRecord, Store } from './store.js';

/** Options of `continuePausedRun`. */
export interface ContinuePausedRunOptions {
  store: Store;
  runId: string;
  /** The paused run's state with the humans' decisions taken (`state.approve` / `state.reject`). */
  state: RunState;
  loop: DurableLoop;
}

/**
 * `agent.run(state, { runId })` on an agent with a store, where `runId` names a stored run paused for
 * approvals: continues that record with `state` (claimed by a version-checked write, so of two processes
 * continuing one run, one gets `RunConflictError`) instead of storing a second run. Answers `undefined`
 * when the store holds no paused run `runId` (the caller then starts a new run under that id).
 */
export async function continuePausedRun(
  options: ContinuePausedRunOptions,
): Promise<RunResult<unknown> | undefined> {
  const { store, runId, state } = options;
  const record = await store.getRun(runId);
  if (record?.status !== 'interrupted') return undefined;
  // With the history at the head of `state`, the record keeps leaving it out: a checkpoint's size
  // does not grow with the session.
  const run = new DurableRun({ store, record, ...(startsWithHistory(state, record) && { state }) });
  await run.write(state, 'running', { inFlight: [] });
  return drive(run, state, options.loop);
}

/**
 * True when the record leaves the session's history out and `state` is that record's state with the
 * history in front (as `agent.run` answered it): its messages after the history are the record's. A
 * state from elsewhere (e.g. read from the record as stored, without the history) is written whole,
 * since its first messages are the run's own.
 */
function startsWithHistory(state: RunState, record: RunRecord): boolean {
  const link = record.session;
  if (!link?.historyOmitted || link.start === 0) return false;
  const stored = (record.state as { messages?: unknown }).messages;
  if (!Array.isArray(stored) || state.messages.length !== link.start + stored.length) return false;
  // Compared as JSON: a store may give the keys back in another order or drop undefined fields.
  const own = JSON.parse(JSON.stringify(state.messages.slice(link.start))) as unknown;
  return isDeepStrictEqual(own, stored);
}
