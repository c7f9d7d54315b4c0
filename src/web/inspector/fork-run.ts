import { readRunState } from '../../agent/durable/read-run-state.js';
import { createRunRecord } from '../../agent/durable/run-with-store.js';
import type { RunRecord, Store } from '../../agent/durable/store.js';
import { RunState } from '../../agent/run-state.js';
import { ChatRequestError } from '../web-error.js';
import { agentUnavailableReason, type InspectorAgent, resolveInspectorAgent } from './inspector-agents.js';
import { stateBeforeStep } from './run-checkpoints.js';

/** What a fork changes: the step it starts at (0-based) and, optionally, the model or the instructions. */
export interface ForkChanges {
  step: number;
  model?: string;
  instructions?: string;
}

/** Options of `forkRun`. */
export interface ForkRunOptions {
  store: Store;
  /** The run forked from. */
  record: RunRecord;
  agents: Readonly<Record<string, InspectorAgent>>;
  changes: ForkChanges;
  /** The fork's run id. */
  runId: string;
  /** Aborts the fork's run (the inspector closing). */
  signal: AbortSignal;
}

/**
 * Starts a new stored run from the state of `record` before step `changes.step` (its messages and steps
 * up to there), run by the record's agent (built with the changed model or instructions by a factory),
 * recorded with `forkedFrom: { runId, step }`. Answers once the fork is stored; `done` settles when it ends
 * (its outcome is in its record, as any run's).
 */
export async function forkRun(options: ForkRunOptions): Promise<{ runId: string; done: Promise<unknown> }> {
  const { store, record, agents, changes, runId } = options;
  const unavailable = agentUnavailableReason(agents, record.agentName);
  if (unavailable) throw new ChatRequestError({ status: 409, message: `fork: ${unavailable}` });
  const changing = changes.model !== undefined || changes.instructions !== undefined;
  if (changing && typeof agents[record.agentName] !== 'function') {
    throw new ChatRequestError({
      status: 400,
      message: `model, instructions: changing them needs the agent "${record.agentName}" given as a factory ((run) => new Agent({ model: run.changes.model ?? ... }))`,
    });
  }
  const context = { runId, owner: undefined, changes: withoutUndefined(changes) };
  const agent = (await resolveInspectorAgent(agents, record.agentName, context))!;
  const { state } = await readRunState(store, record, agent);
  const before = stateBeforeStep(state.messages, state.steps, changes.step);
  if (!before) {
    throw new ChatRequestError({
      status: 400,
      message: `step: ${changes.step} is not a step of run "${record.id}" whose state can be derived (0 to ${state.steps.length}; steps after a handoff filter or a trimmed history cannot be)`,
    });
  }
  const forked = new RunState({
    messages: before.messages,
    steps: before.steps,
    usage: before.usage,
    turn: changes.step,
  });
  await createRunRecord({
    store,
    agentName: record.agentName,
    runId,
    state: forked,
    session: undefined,
    fresh: false,
    forkedFrom: { runId: record.id, step: changes.step },
  });
  const done = agent.resume(runId, { store, signal: options.signal });
  // The outcome is recorded in the fork's record; nobody awaits it here.
  done.catch(() => undefined);
  return { runId, done };
}

function withoutUndefined(changes: ForkChanges): { model?: string; instructions?: string } {
  return {
    ...(changes.model !== undefined && { model: changes.model }),
    ...(changes.instructions !== undefined && { instructions: changes.instructions }),
  };
}
