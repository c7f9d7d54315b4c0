import { buildRunResult } from '../build-run-result.js';
import { RunConflictError, RunStateError } from '../errors.js';
import type { RunResult } from '../run-result.js';
import { RunState, type RunStateOwner } from '../run-state.js';
import { type DurableHooks, DurableRun } from './durable-run.js';
import { readRunState } from './read-run-state.js';
import type { RunRecord, Store } from './store.js';

/** Runs the agent loop on `state`, checkpointing through `durable`. */
export type DurableLoop = (state: RunState, durable: DurableHooks) => Promise<RunResult<unknown>>;

/** Options of `startDurableRun`. */
export interface StartDurableRunOptions {
  store: Store;
  agentName: string;
  runId: string;
  state: RunState;
  /** Session whose history is prepended, and to which the run's items are appended. */
  session: string | undefined;
  /** True when the state was built from new input (history is prepended only then). */
  fresh: boolean;
  loop: DurableLoop;
}

/** Records a new run under `runId` (a `RunConflictError` if that id exists) and runs it. */
export async function startDurableRun(options: StartDurableRunOptions): Promise<RunResult<unknown>> {
  const record = await createRunRecord(options);
  const run = new DurableRun({ store: options.store, record, state: options.state });
  return drive(run, options.state, options.loop);
}

/**
 * Stores a new run (status `running`) for `state`, prepending the session's history to fresh input:
 * what `agent.run` does before running, and `queue.enqueue` before a worker picks the run up. The record
 * refers to the session's history instead of holding a copy (`session.historyOmitted`).
 */
export async function createRunRecord(options: Omit<StartDurableRunOptions, 'loop'>): Promise<RunRecord> {
  const { store, state, session, runId } = options;
  let link: RunRecord['session'];
  let omitted = 0;
  if (session !== undefined) {
    const history = options.fresh ? await store.getItems(session) : [];
    state.messages.unshift(...history);
    const start = options.fresh ? history.length : state.messages.length;
    const input = state.messages.slice(start);
    link = { id: session, start, appended: start, input, firstStep: state.steps.length, done: 0 };
    if (history.length > 0) link.historyOmitted = true;
    omitted = history.length;
  }
  const json = state.toJSON();
  return store.createRun({
    id: runId,
    agentName: options.agentName,
    status: 'running',
    state: { ...json, messages: json.messages.slice(omitted) } as unknown as Record<string, unknown>,
    interruptions: [],
    ...(link && { session: link }),
  });
}

/** Options of `resumeDurableRun`. */
export interface ResumeDurableRunOptions {
  store: Store;
  runId: string;
  owner: RunStateOwner;
  loop: DurableLoop;
}

/**
 * Continues a stored run from its last checkpoint: reads it, claims it (a version-checked write: of two
 * processes resuming at once, one gets `RunConflictError`) and runs it; the loop settles the calls that
 * were in flight when it stopped, with the tools of the agent in charge (`DurableRun.recover`). A
 * completed run is answered from the store without running; a run an input guardrail stopped is refused.
 */
export async function resumeDurableRun(options: ResumeDurableRunOptions): Promise<RunResult<unknown>> {
  const { store, runId } = options;
  const record = await store.getRun(runId);
  if (!record) throw new RunStateError(`No stored run "${runId}"`);
  const { state } = await readRunState(store, record, options.owner);
  if (record.status === 'completed') {
    const result = buildRunResult(state, 'completed', record.output, runId);
    if (record.lastAgent !== undefined) result.lastAgent = record.lastAgent;
    return result;
  }
  if (record.status === 'failed' && record.inputTripwire !== undefined) {
    throw new RunStateError(
      `Run "${runId}" was stopped by the input guardrail ${record.inputTripwire}; it cannot be resumed`,
    );
  }
  const run = new DurableRun({ store, record, state });
  // Claims the run: from here its checkpoints are this process's, and a racing resume gets a conflict.
  // The calls still in flight stay recorded until the loop has settled them.
  await run.write(state, 'running', { inFlight: record.inFlight ?? [] });
  return drive(run, state, options.loop);
}

/** Runs `loop` on a claimed run and records how it ended (completed, paused, or failed with its state). */
export async function drive(
  run: DurableRun,
  state: RunState,
  loop: DurableLoop,
): Promise<RunResult<unknown>> {
  let result: RunResult<unknown>;
  try {
    result = await loop(state, run);
  } catch (error) {
    // A conflict means another process owns the run now: it is theirs to record.
    if (!RunConflictError.isInstance(error)) {
      const failed = (error as { state?: unknown }).state;
      await run.fail(failed instanceof RunState ? failed : state, error).catch(() => undefined);
    }
    throw error;
  }
  await run.finish(result.state, result.status, result);
  return result;
}
