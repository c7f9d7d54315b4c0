import type { RunResult } from '../run-result.js';
import type { RunState } from '../run-state.js';
import { DurableRun } from './durable-run.js';
import { type DurableLoop, drive } from './run-durably.js';
import type { Store } from './store.js';

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
  const run = new DurableRun({ store, record });
  await run.write(state, 'running', { inFlight: [] });
  return drive(run, state, options.loop);
}
