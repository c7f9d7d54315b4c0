import { hostname } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { attachRunId, attachRunState, RunConflictError, RunStateError } from '../errors.js';
import { buildRunResult } from '../loop/build-run-result.js';
import type { RunResult } from '../run-result.js';
import { RunState, type RunStateOwner } from '../run-state.js';
import { readRunState } from './read-run-state.js';
import type { RunRecord, RunRecordInput, Store } from './store.js';
import { rememberStoredRun } from './stored-run-ids.js';
import { type DurableHooks, StoredRunWriter } from './stored-run-writer.js';

// How an agent runs with a store: a new run is recorded before it starts, a stored run is resumed from
// its last checkpoint, a run paused for approvals is continued under its own record; each is driven to a
// recorded end (completed, paused, or failed with its state) by a StoredRunWriter.

/** Options of `runWithStore`. */
export interface RunWithStoreOptions {
  store: Store;
  agentName: string;
  runId: string;
  owner: RunStateOwner;
  /** Builds the state of a new run; `undefined` resumes the stored run `runId`. */
  input: (() => RunState) | undefined;
  /** A saved state run under a caller-given `runId`: when the store holds that run paused or failed, its record continues. */
  paused: RunState | undefined;
  session: string | undefined;
  fresh: boolean;
  loop: DurableLoop;
}

/** The `Agent`'s one entry into runs kept in a store (loaded only by agents with one). */
export async function runWithStore(options: RunWithStoreOptions): Promise<RunResult<unknown>> {
  const { store, runId, loop } = options;
  if (options.input === undefined) {
    return resumeDurableRun({ store, runId, owner: options.owner, loop });
  }
  if (options.paused !== undefined) {
    // A paused stored run continued with the caller's decisions: the same record, not a second one.
    const continued = await continuePausedRun({ store, runId, state: options.paused, loop });
    if (continued) return continued;
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
async function startDurableRun(options: StartDurableRunOptions): Promise<RunResult<unknown>> {
  const record = await createRunRecord(options);
  const run = new StoredRunWriter({ store: options.store, record, state: options.state });
  return drive(run, options.state, options.loop);
}

/**
 * Stores a new run (status `running`) for `state`, prepending the session's history to fresh input:
 * what `agent.run` does before running, and `queue.enqueue` before a worker picks the run up. The record
 * refers to the session's history instead of holding a copy (`session.historyOmitted`).
 */
export async function createRunRecord(
  options: Omit<StartDurableRunOptions, 'loop'> & Pick<RunRecordInput, 'tenant' | 'forkedFrom'>,
): Promise<RunRecord> {
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
    ...(options.tenant !== undefined && { tenant: options.tenant }),
    ...(options.forkedFrom && { forkedFrom: options.forkedFrom }),
  });
}

/** Options of `resumeDurableRun`. */
interface ResumeDurableRunOptions {
  store: Store;
  runId: string;
  owner: RunStateOwner;
  loop: DurableLoop;
}

/**
 * Continues a stored run from its last checkpoint: reads it, claims it (a version-checked write: of two
 * processes resuming at once, one gets `RunConflictError`) and runs it; the loop settles the calls that
 * were in flight when it stopped, with the tools of the agent in charge (`StoredRunWriter.recover`). A
 * completed run is answered from the store without running; a run an input guardrail stopped is refused.
 */
async function resumeDurableRun(options: ResumeDurableRunOptions): Promise<RunResult<unknown>> {
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
  // A takeover (the record still `running`: its process stopped) or a resume, kept for the run inspector.
  const inFlight = record.inFlight ?? [];
  state.resumes.push({
    at: Date.now(),
    from: record.status,
    worker: processName(),
    inFlight,
    lastCheckpointAt: record.updatedAt,
    steps: state.steps.length,
  });
  const run = new StoredRunWriter({ store, record, state });
  // Claims the run: from here its checkpoints are this process's, and a racing resume gets a conflict.
  // The calls still in flight stay recorded until the loop has settled them.
  await run.write(state, 'running', { inFlight: record.inFlight ?? [] });
  return drive(run, state, options.loop);
}

/** Runs `loop` on a claimed run and records how it ended (completed, paused, or failed with its state). */
async function drive(run: StoredRunWriter, state: RunState, loop: DurableLoop): Promise<RunResult<unknown>> {
  let result: RunResult<unknown>;
  try {
    result = await loop(state, run);
  } catch (error) {
    // A conflict means another process owns the run now: it is theirs to record.
    if (!RunConflictError.isInstance(error)) {
      const carried = (error as { state?: unknown }).state;
      const failed = carried instanceof RunState ? carried : state;
      await run.fail(failed, error).catch(() => undefined);
      // The error names the record, and its state leads back to it: resuming continues this run.
      attachRunState(attachRunId(error, run.runId), failed);
      rememberStoredRun(failed, run.runId);
    }
    throw error;
  }
  await run.finish(result.state, result.status, result);
  return result;
}

/** Options of `continuePausedRun`. */
interface ContinuePausedRunOptions {
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
async function continuePausedRun(options: ContinuePausedRunOptions): Promise<RunResult<unknown> | undefined> {
  const { store, runId, state } = options;
  const record = await store.getRun(runId);
  // A paused run, or a failed one resumed from its error's state (not one an input guardrail stopped).
  const resumable =
    record?.status === 'interrupted' || (record?.status === 'failed' && record.inputTripwire === undefined);
  if (!record || !resumable) return undefined;
  // With the session's history at the head of `state`, the record keeps leaving it out: a checkpoint's
  // size does not grow with the session.
  const withHistory = await putHistoryInFront(store, state, record);
  const run = new StoredRunWriter({ store, record, ...(withHistory && { state }) });
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

// The process taking up a run, as its resume records name it.
function processName(): string {
  return `${hostname()}:${process.pid}`;
}
