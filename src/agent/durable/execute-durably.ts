import type { RunResult } from '../run-result.js';
import type { RunState, RunStateOwner } from '../run-state.js';
import { type DurableLoop, resumeDurableRun, startDurableRun } from './run-durably.js';
import type { Store } from './store.js';

export { recordDecision } from './record-decision.js';

/** Options of `executeDurably`. */
export interface ExecuteDurablyOptions {
  store: Store;
  agentName: string;
  runId: string;
  owner: RunStateOwner;
  /** Builds the state of a new run; `undefined` resumes the stored run `runId`. */
  input: (() => RunState) | undefined;
  session: string | undefined;
  fresh: boolean;
  loop: DurableLoop;
}

/** The `Agent`'s one entry into durable runs (loaded only by agents with a store). */
export async function executeDurably(options: ExecuteDurablyOptions): Promise<RunResult<unknown>> {
  const { store, runId, loop } = options;
  if (options.input === undefined) {
    return resumeDurableRun({ store, runId, owner: options.owner, loop });
  }
  return startDurableRun({
    store,
    agentName: options.agentName,
    runId,
    state: options.input(),
    session: options.session,
    fresh: options.fresh,
    loop,
  });
}
