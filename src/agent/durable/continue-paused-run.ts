import { isDeepStrictEqual } from 'node:util';
import { RunStateError } from '../errors.js';
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
  // With the session's history at the head of `state`, the record keeps leaving it out: a checkpoint's
  // size does not grow with the session.
  const withHistory = await putHistoryInFront(store, state, record);
  const run = new DurableRun({ store, record, ...(withHistory && { state }) });
  await run.write(state, 'running', { inFlight: [] });
  return drive(run, state, options.loop);
}

/**
 * When the record leaves the session's history out, makes sure `state` starts with it and answers true:
 * a state as `agent.run` answered it already does; a state read from the record as stored (its messages
 * are the record's) gets the history read back from the session, as a resume does. Any other state is
 * the caller's own and is left as it is (answers false: it is written whole).
 */
async function putHistoryInFront(store: Store, state: RunState, record: RunRecord): Promise<boolean> {
  const link = record.session;
  if (!link?.historyOmitted || link.start === 0) return false;
  const stored = (record.state as { messages?: unknown }).messages;
  if (!Array.isArray(stored)) return false;
  if (state.messages.length === link.start + stored.length) {
    return sameMessages(state.messages.slice(link.start), stored);
  }
  if (state.messages.length !== stored.length || !sameMessages(state.messages, stored)) return false;
  const items = await store.getItems(link.id);
  if (items.length < link.start) {
    throw new RunStateError(
      `Run "${record.id}" begins with ${link.start} items of session "${link.id}", which now holds ${items.length}: the session was cleared or popped`,
    );
  }
  state.messages.unshift(...items.slice(0, link.start));
  return true;
}

// Compared as JSON: a store may give the keys back in another order or drop undefined fields.
function sameMessages(messages: readonly unknown[], stored: readonly unknown[]): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(messages)) as unknown, stored);
}
