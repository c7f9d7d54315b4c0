import type { SvcClient } from '../api/svc-client.js';
import { ToolSuspendedError } from '../tools/errors.js';
import { executeToolCall } from '../tools/execute-tool-call.js';
import type { ToolCallOutcome, ToolSet } from '../tools/tool.js';
import type { EagerToolStarter } from './eager-tool-starter.js';
import { throwIfAborted } from './errors/to-abort-error.js';
import { ToolApprovalError } from './errors/tool-approval-error.js';
import type { AgentEvent } from './events.js';
import { parsedArgumentsOf } from './prepare-tool-calls.js';
import type { PendingToolCall, RunState } from './run-state.js';
import { rejectionText, resultFromOutcome, settlePendingCalls, unrunResult } from './settle-pending-calls.js';
import { toolResultSources } from './tool-result-sources.js';

/** Options of `executeTurnTools`. */
export interface ExecuteTurnToolsOptions {
  state: RunState;
  toolSet: ToolSet;
  context: unknown;
  client: SvcClient | undefined;
  signal: AbortSignal;
  concurrency: number;
  /** Absent when nobody observes the run: no event is built. */
  emit?: ((event: AgentEvent) => void) | undefined;
  /** Calls of this turn that started while the model streamed; their outcomes are used when still valid. */
  eager?: EagerToolStarter | undefined;
  /** The run's id, handed to tools as `ctx.runId`. */
  runId?: string | undefined;
  /** Awaited after each call finishes (a durable run checkpoints there). */
  onToolFinished?: (() => Promise<void>) | undefined;
  /** Cap on each `tool` message, in characters, for tools that set none. */
  maxOutputChars?: number | undefined;
}

/**
 * Runs the pending calls of the last turn that may run (no approval needed, or approved), in parallel
 * through the run's ledger so a finished call never runs twice. When some call still waits for a human,
 * the finished results stay in the ledger and the turn stays pending (`interrupted`); otherwise every
 * call is answered, rejected ones with the reason, and the turn is `settled`.
 */
export async function executeTurnTools(options: ExecuteTurnToolsOptions): Promise<'settled' | 'interrupted'> {
  const { state, toolSet, signal, emit } = options;
  // Plain loops over the calls, not `.filter`/`.map`: see recordStep.
  const runnable: PendingToolCall[] = [];
  for (const call of state.pendingToolCalls) {
    if (call.approval === 'none' || call.approval === 'approved') runnable.push(call);
  }
  // Outcomes already in the ledger were reported by the run that produced them.
  let fresh: Set<string> | undefined;
  if (emit) {
    fresh = new Set();
    for (const call of runnable) if (!state.ledger.has(call.toolCallId)) fresh.add(call.toolCallId);
  }
  // Each result is reported as soon as its call ends, not when the whole turn is done.
  const report = (outcome: ToolCallOutcome): void => {
    // A suspended call (a sub-agent waiting for approval) is reported through its approval requests.
    if (!emit || !fresh?.has(outcome.toolCallId) || ToolSuspendedError.isInstance(outcome.error)) return;
    const { toolCallId, toolName, input } = outcome;
    if (outcome.status === 'ok') {
      emit({ type: 'tool-result', toolCallId, toolName, input, output: outcome.output });
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
  const step = state.steps.length - 1;
  // A failed checkpoint ends the turn: the calls still running are stopped (their signal aborted) and
  // awaited, so their outcomes are in the state the failure is recorded with and none finishes later.
  const stop = options.onToolFinished ? new AbortController() : undefined;
  const toolSignal = stop ? AbortSignal.any([signal, stop.signal]) : signal;
  let checkpointFailure: { error: unknown } | undefined;
  const outcomes = await runPool(runnable, options.concurrency, async (call) => {
    if (checkpointFailure) return unrunOutcome(call);
    const early = options.eager?.claim(call);
    const outcome = await (early
      ? state.ledger.run(call.toolCallId, () => early)
      : executeToolCall({
          toolSet,
          call: toToolCall(call),
          context: options.context,
          client: options.client,
          signal: toolSignal,
          ledger: state.ledger,
          parsedArguments: parsedArgumentsOf(call),
          runId: options.runId,
          step,
          maxOutputChars: options.maxOutputChars,
        }));
    report(outcome);
    if (options.onToolFinished && !checkpointFailure) {
      try {
        await options.onToolFinished();
      } catch (error) {
        checkpointFailure ??= { error };
        stop?.abort(error);
      }
    }
    return outcome;
  }).finally(() => options.eager?.discard());
  throwIfAborted(signal);
  if (checkpointFailure) throw checkpointFailure.error;
  if (state.pendingToolCalls.some((call) => call.approval === 'pending')) return 'interrupted';

  const byId = new Map<string, ToolCallOutcome>();
  for (const outcome of outcomes) byId.set(outcome.toolCallId, outcome);
  settlePendingCalls(state, (call) => {
    const outcome = byId.get(call.toolCallId);
    if (outcome) return resultFromOutcome(outcome, toolResultSources(toolSet, outcome));
    const content = rejectionText(call);
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

// A call left unstarted because the turn already failed: nothing ran, so a resume may start it.
function unrunOutcome(call: PendingToolCall): ToolCallOutcome {
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: call.input,
    status: 'aborted',
    output: undefined,
    content: `Tool ${call.toolName} was not run: the run failed before it started.`,
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
