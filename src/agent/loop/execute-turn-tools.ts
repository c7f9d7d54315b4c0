import type { SvcClient } from '../../api/svc-client.js';
import { ToolSuspendedError } from '../../tools/errors.js';
import { executeScopedToolCall, type ToolCallScope } from '../../tools/execute-tool-call.js';
import { formatToolOutput } from '../../tools/format-tool-output.js';
import { notStartedText, rejectionText } from '../../tools/model-texts.js';
import type { ToolCallOutcome, ToolSet } from '../../tools/tool.js';
import { ToolApprovalError } from '../errors.js';
import type { AgentEvent } from '../events.js';
import type { PendingToolCall, RunState } from '../run-state.js';
import type { EagerToolStarter } from './eager-tool-starter.js';
import { parsedArgumentsOf } from './prepare-tool-calls.js';
import { throwIfAborted } from './run-signal.js';
import { resultFromOutcome, settlePendingCalls, unrunResult } from './settle-pending-calls.js';
import { toolResultSources } from './tool-result-sources.js';

/**
 * What the tool work of one turn shares, built once per turn by the loop and handed as this one object to
 * approvals (`requestApprovals`), early starts (`createEagerToolStarter`) and execution (`executeTurnTools`).
 */
export interface TurnToolContext extends ToolCallScope {
  /** The step's tools: the agent's, or what its `tools` function answered for the step. */
  toolSet: ToolSet;
  /** The caller's context, handed to tools and approval policies. */
  context: unknown;
  /** The client handed to tools as `ctx.client`. */
  client: SvcClient | undefined;
  /** Aborts the run's tools; absent when the run has no signal. */
  signal: AbortSignal | undefined;
  /** The run's id (`ctx.runId`, part of `ctx.idempotencyKey`). */
  runId: string;
  /** Index of the step whose calls these are. */
  step: number;
  /** Cap on each `tool` message, in characters, for tools that set none. */
  maxOutputChars: number;
  /** At most this many calls run at once. */
  concurrency: number;
  /** Where the run's events go; absent when nobody observes the run, so no event is built. */
  emit: ((event: AgentEvent) => void) | undefined;
}

/**
 * Runs the pending calls of the last turn that may run (no approval needed, or approved), in parallel
 * through the run's ledger so a finished call never runs twice. When some call still waits for a human,
 * the finished results stay in the ledger and the turn stays pending (`interrupted`); otherwise every
 * call is answered, rejected ones with the reason, and the turn is `settled`.
 */
export async function executeTurnTools(
  turn: TurnToolContext,
  state: RunState,
  /** Calls of this turn that started while the model streamed; their outcomes are used when still valid. */
  eager: EagerToolStarter | undefined,
  /** Awaited after each call finishes (a durable run checkpoints there). */
  onToolFinished: (() => Promise<void>) | undefined,
): Promise<'settled' | 'interrupted'> {
  const { toolSet, signal, emit } = turn;
  // Plain loops over the calls, not `.filter`/`.map`: see recordStep.
  const runnable: PendingToolCall[] = [];
  for (const call of state.pendingToolCalls) {
    if (call.approval === 'none' || call.approval === 'approved') runnable.push(call);
  }
  // Outcomes already in the ledger were reported by the run that produced them.
  let fresh: Set<string> | undefined;
  let clientCalls: Set<string> | undefined;
  if (emit) {
    fresh = new Set();
    for (const call of runnable) {
      if (!state.ledger.has(call.toolCallId)) fresh.add(call.toolCallId);
      if (!call.clientSide) continue;
      clientCalls ??= new Set();
      clientCalls.add(call.toolCallId);
    }
  }
  // Each result is reported as soon as its call ends, not when the whole turn is done.
  const report = (outcome: ToolCallOutcome): void => {
    // A suspended call (a sub-agent waiting for approval) is reported through its approval requests.
    if (!emit || !fresh?.has(outcome.toolCallId) || ToolSuspendedError.isInstance(outcome.error)) return;
    const { toolCallId, toolName, input } = outcome;
    if (outcome.status === 'ok') {
      const clientSide = clientCalls?.has(toolCallId) === true;
      emit({
        type: 'tool-result',
        toolCallId,
        toolName,
        input,
        output: outcome.output,
        ...(clientSide ? { clientSide } : {}),
      });
      for (const source of toolResultSources(toolSet, outcome) ?? [])
        emit({ type: 'source', toolCallId, ...source });
    } else
      emit({
        type: 'tool-error',
        toolCallId,
        toolName,
        input,
        error: outcome.error ?? new Error(outcome.content),
      });
  };
  // A failed checkpoint ends the turn: the calls still running are stopped (their signal aborted) and
  // awaited, so their outcomes are in the state the failure is recorded with and none finishes later.
  const stop = onToolFinished ? new AbortController() : undefined;
  const toolSignal = stop && signal ? AbortSignal.any([signal, stop.signal]) : (stop?.signal ?? signal);
  let checkpointFailure: { error: unknown } | undefined;
  const pool = runPool(runnable, turn.concurrency, async (call) => {
    if (checkpointFailure) return unrunOutcome(call);
    const early = eager?.claim(call);
    // A call that ran before (an outcome in the ledger) keeps its first times.
    if (!early && call.startedAt === undefined) call.startedAt = Date.now();
    const outcome = await (call.clientSide
      ? state.ledger.run(call.toolCallId, async () => clientOutcome(call, toolSet, turn.maxOutputChars))
      : early
        ? state.ledger.run(call.toolCallId, () => early)
        : executeScopedToolCall(turn, toToolCall(call), toolSignal, state.ledger, parsedArgumentsOf(call)));
    call.finishedAt ??= Date.now();
    report(outcome);
    if (onToolFinished && !checkpointFailure) {
      try {
        await onToolFinished();
      } catch (error) {
        checkpointFailure ??= { error };
        stop?.abort(error);
      }
    }
    return outcome;
  });
  // Only a turn with early starts has something to discard: no `finally` promise and turn otherwise.
  const outcomes = await (eager ? pool.finally(() => eager.discard()) : pool);
  throwIfAborted(signal);
  if (checkpointFailure) throw checkpointFailure.error;
  if (state.pendingToolCalls.some((call) => call.approval === 'pending')) return 'interrupted';

  const byId = new Map<string, ToolCallOutcome>();
  for (const outcome of outcomes) byId.set(outcome.toolCallId, outcome);
  settlePendingCalls(state, (call) => {
    const outcome = byId.get(call.toolCallId);
    if (outcome) return resultFromOutcome(outcome, toolResultSources(toolSet, outcome));
    const content = rejectionText(call.toolName, call.rejectionMessage);
    emit?.({
      type: 'tool-error',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
      error: new ToolApprovalError({ toolCallId: call.toolCallId, message: content }),
    });
    return unrunResult(call, 'rejected', content);
  });
  return 'settled';
}

// A client-side call's outcome: the output the caller supplied, as the model reads any tool's output.
function clientOutcome(call: PendingToolCall, toolSet: ToolSet, maxOutputChars: number): ToolCallOutcome {
  const output = call.clientOutput;
  const cap = toolSet.functions.get(call.toolName)?.maxOutputChars ?? maxOutputChars;
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: call.input,
    status: 'ok',
    output,
    content: formatToolOutput(output, cap),
    executed: true,
  };
}

// A call left unstarted because the turn already failed: nothing ran, so a resume may start it.
function unrunOutcome(call: PendingToolCall): ToolCallOutcome {
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: call.input,
    status: 'aborted',
    output: undefined,
    content: notStartedText(call.toolName),
    executed: false,
  };
}

function toToolCall(call: PendingToolCall) {
  return {
    id: call.toolCallId,
    type: 'function' as const,
    function: { name: call.toolName, arguments: call.arguments },
  };
}

/** Maps `items` with at most `limit` running at once; results keep the order of `items`. */
async function runPool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  // The usual turn fits under the limit: start every call at once, no workers to schedule.
  if (items.length <= limit) return Promise.all(items.map(fn));
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
