import type { RunState } from '../run-state.js';

// The stored run a failed run's `error.state` belongs to, so `agent.run(error.state)` on an agent with a
// store continues that record instead of storing a second run. A WeakMap: the state stays the caller's,
// unchanged (its JSON does not grow an id), and is collected with it.
const storedRunIds = new WeakMap<RunState, string>();

/** Remembers that `state` is the state of the stored run `runId` as it failed. */
export function rememberStoredRun(state: RunState, runId: string): void {
  storedRunIds.set(state, runId);
}

/** The stored run `state` is the failed state of, if it is one. */
export function storedRunIdOf(state: RunState): string | undefined {
  return storedRunIds.get(state);
}
