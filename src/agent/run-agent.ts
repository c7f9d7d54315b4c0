import type { z } from 'zod';
import type { SvcClient } from '../api/svc-client.js';
import type { ChatCompletionCreateParams } from '../api/types/chat.js';
import type { ToolSet } from '../tools/tool.js';
import type { AgentHooks } from './agent-hooks.js';
import { buildRequest } from './build-request.js';
import { buildRunResult } from './build-run-result.js';
import { type CreateChatCompletion, callModel } from './call-model.js';
import { checkFinalOutput } from './check-final-output.js';
import { priceStep } from './cost/price-step.js';
import type { PriceTable } from './cost/price-table.js';
import { distinctToolCallIds } from './distinct-tool-call-ids.js';
import type { DurableHooks } from './durable/durable-run.js';
import { type ResolveToolSet, refreshToolSet } from './dynamic-tools.js';
import { createEagerToolStarter, type EagerToolStarter } from './eager-tool-starter.js';
import { attachRunState } from './errors/attach-run-state.js';
import { MaxTurnsExceededError } from './errors/max-turns-exceeded-error.js';
import { throwIfAborted, toAbortError } from './errors/to-abort-error.js';
import type { AgentEvent } from './events.js';
import { executeTurnTools } from './execute-turn-tools.js';
import type { ModelSettings } from './model-settings.js';
import { needsApprovalCheck, prepareToolCalls, requestApprovals } from './prepare-tool-calls.js';
import { recordStep } from './record-step.js';
import type { AgentStep, RunResult } from './run-result.js';
import { runInScope, toolSetNeedsScope } from './run-scope.js';
import type { RunState } from './run-state.js';
import {
  cancelledText,
  rejectionText,
  resultFromOutcome,
  settlePendingCalls,
  turnLimitText,
  unrunResult,
} from './settle-pending-calls.js';
import type { StopCondition } from './stop-conditions.js';
import type { OutputRequest } from './structured-output.js';
import { toAssistantMessage } from './to-assistant-message.js';
import { validatedPrefixLength } from './validated-prefix.js';

/** Everything one run needs, already checked and normalised by the `Agent`. */
export interface RunAgentOptions {
  state: RunState;
  model: string;
  instructions: string | undefined;
  toolSet: ToolSet;
  modelSettings: ModelSettings;
  output: { schema: z.ZodType; request: OutputRequest } | undefined;
  /** Model requests allowed in this invocation. */
  maxTurns: number;
  stopWhen: StopCondition;
  toolConcurrency: number;
  /** Cap on each `tool` message, in characters, for tools that set none. */
  maxToolOutputChars?: number | undefined;
  stream: boolean;
  context: unknown;
  client: SvcClient | undefined;
  create: CreateChatCompletion;
  signal: AbortSignal;
  emit: (event: AgentEvent) => void;
  generateId: () => string;
  hooks: AgentHooks;
  /** Prices per model: each step's `usage.cost`. */
  prices?: PriceTable | undefined;
  /** The agent's name (handed to tools that run agents, see `run-scope.ts`). */
  name?: string;
  /** Set when `tools` is a function: replaces `toolSet` before each step. */
  resolveTools?: ResolveToolSet | undefined;
  /** Awaited before any tool of the run starts (input guardrails running alongside the first request). */
  beforeTools?: (() => Promise<void>) | undefined;
  /** The run's id, handed to tools as `ctx.runId`. */
  runId: string;
  /** Checkpoints of a run kept in a store. */
  durable?: DurableHooks | undefined;
}

/**
 * The agent loop: finish a pending tool turn (resume), then repeatedly prepare the turn, call the model,
 * record its answer, and either return the final answer or run the requested tools and decide whether
 * to stop. Any failure leaves `state` valid to resume and is thrown with it as `error.state`.
 */
export async function runAgent(options: RunAgentOptions): Promise<RunResult<unknown>> {
  const { state, signal, emit } = options;
  emit({ type: 'start' });
  // The current turn's early-started tools: whatever fails before its tools run, they are aborted.
  let eager: EagerToolStarter | undefined;
  try {
    if (state.pendingToolCalls.length > 0) {
      const step = state.steps.at(-1)!;
      await refreshToolSet(options, step.index);
      // A resumed durable run settles what the stopped process left in flight, with these tools.
      if (options.durable?.recover) await options.durable.recover(state, options.toolSet);
      if ((await runTools(options)) === 'interrupted') return finish(options, 'interrupted');
      await finishStep(options, step);
      if (await shouldStop(options)) return finish(options, 'completed');
    }
    // The last request the service accepted: the next turn re-sends its messages and fields, already valid.
    let sent: ChatCompletionCreateParams | undefined;
    for (let turns = 0; ; ) {
      throwIfAborted(signal);
      const index = state.steps.length;
      emit({ type: 'start-step', step: index });
      const started = options.hooks.onStepStart?.({ step: index, messages: state.messages, state });
      if (started !== undefined) await started;
      const refreshed = refreshToolSet(options, index);
      if (refreshed !== undefined) await refreshed;
      const params = buildRequest({
        model: options.model,
        instructions: options.instructions,
        messages: state.messages,
        tools: options.toolSet.definitions,
        modelSettings: options.modelSettings,
        output: options.output?.request,
        stream: options.stream,
      });
      // Not on the last allowed turn (its calls are answered "not run"), nor while input guardrails that
      // tools must wait for are still running.
      eager =
        options.stream && turns + 1 < options.maxTurns && !options.beforeTools
          ? startEagerly(options, index)
          : undefined;
      const completion = await callModel({
        create: options.create,
        params,
        signal,
        emit,
        generateId: options.generateId,
        validatedPrefix:
          sent === undefined
            ? undefined
            : { messages: validatedPrefixLength(sent.messages, params.messages), params: sent },
        eager,
      });
      sent = params;
      turns += 1;
      const message = completion.choices[0]?.message ?? { role: 'assistant' as const, content: '' };
      const turn = toAssistantMessage(message, options.generateId);
      // Before the turn enters the history: a reused id must neither hit the ledger nor pair two answers.
      distinctToolCallIds(turn.functionCalls, state);
      const step = recordStep(state, completion, turn);
      if (options.prices) priceStep(state, step, params, completion, options.prices);

      // A message with function calls is a tool turn whatever its finish_reason says.
      if (turn.functionCalls.length === 0) {
        const finished = finishStep(options, step);
        if (finished !== undefined) await finished;
        const checked = checkFinalOutput({
          schema: options.output?.schema,
          step,
          state,
          turnsLeft: options.maxTurns - turns,
        });
        if (checked === 'repair') continue;
        return finish(options, 'completed', checked.output);
      }

      // Pending before anything else can fail, so a failed run resumes by answering these calls.
      state.pendingToolCalls = prepareToolCalls(turn.functionCalls, options.toolSet, emit);
      step.toolCalls = state.pendingToolCalls.map(({ toolCallId, toolName, arguments: text, input }) => ({
        toolCallId,
        toolName,
        arguments: text,
        input,
      }));
      const atLimit = turns >= options.maxTurns;
      if (!atLimit && needsApprovalCheck(state.pendingToolCalls, options.toolSet)) {
        await requestApprovals({
          pending: state.pendingToolCalls,
          toolSet: options.toolSet,
          context: options.context,
          client: options.client,
          signal,
          emit,
          runId: options.runId,
          step: step.index,
        });
      }
      if (atLimit) {
        settlePendingCalls(state, (call) =>
          unrunResult(call, 'turn-limit', turnLimitText(call, options.maxTurns)),
        );
        await finishStep(options, step);
        const result = buildRunResult<unknown>(state, 'completed', undefined, options.runId);
        throw new MaxTurnsExceededError({ maxTurns: options.maxTurns, result, state });
      }
      if ((await runTools(options, eager)) === 'interrupted') {
        emitFinishStep(emit, step);
        return finish(options, 'interrupted');
      }
      const finished = finishStep(options, step);
      if (finished !== undefined) await finished;
      const stop = shouldStop(options);
      if (stop === true || (stop !== false && (await stop))) return finish(options, 'completed');
    }
  } catch (error) {
    eager?.discard();
    throw failRun(options, error);
  }
}

function runTools(options: RunAgentOptions, eager?: EagerToolStarter): Promise<'settled' | 'interrupted'> {
  const { state, toolSet, context, client, signal, emit, durable } = options;
  const run = () =>
    executeTurnTools({
      state,
      toolSet,
      context,
      client,
      signal,
      emit,
      concurrency: options.toolConcurrency,
      eager,
      runId: options.runId,
      onToolFinished: durable && (() => durable.afterToolCall(state)),
      maxOutputChars: options.maxToolOutputChars,
    });
  // Tools that run agents (`agent.asTool`) find this run's events, usage and state through the scope.
  const start = () =>
    toolSetNeedsScope(toolSet) ? runInScope({ agentName: options.name ?? 'agent', state, emit }, run) : run();
  // A durable run checkpoints the model's turn before any of its tools starts.
  const checkpointed = durable ? () => durable.beforeTools(state).then(start) : start;
  return options.beforeTools ? options.beforeTools().then(checkpointed) : checkpointed();
}

function startEagerly(options: RunAgentOptions, step: number): EagerToolStarter | undefined {
  const { toolSet, context, client, signal, runId } = options;
  return createEagerToolStarter({
    toolSet,
    context,
    client,
    signal,
    concurrency: options.toolConcurrency,
    runId,
    step,
    maxOutputChars: options.maxToolOutputChars,
  });
}

/** Emits `finish-step` and calls the hook: a promise only when the hook returned one. */
function finishStep(options: RunAgentOptions, step: AgentStep): void | PromiseLike<void> {
  emitFinishStep(options.emit, step);
  return options.hooks.onStepFinish?.({ step, state: options.state });
}

// Stop conditions and hooks are usually synchronous: each turn awaits only what really is a promise.
function shouldStop(options: RunAgentOptions): boolean | PromiseLike<boolean> {
  return options.stopWhen({ steps: options.state.steps });
}

function emitFinishStep(emit: (event: AgentEvent) => void, step: AgentStep): void {
  emit({ type: 'finish-step', step: step.index, finishReason: step.finishReason, usage: step.usage });
}

function finish(
  options: RunAgentOptions,
  status: 'completed' | 'interrupted',
  output?: unknown,
): RunResult<unknown> {
  const result = buildRunResult(options.state, status, output, options.runId);
  options.emit({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
  return result;
}

/**
 * Makes the failure resumable: on abort, every pending call gets its one `tool` message (its finished
 * outcome, else "cancelled"), and the error is the transport's `APIUserAbortError`; any error carries
 * the state as a non-enumerable `error.state`.
 */
function failRun(options: RunAgentOptions, error: unknown): unknown {
  const { state, signal } = options;
  if (!signal.aborted) return attachRunState(error, state);
  settlePendingCalls(state, (call) => {
    const done = state.ledger.get(call.toolCallId);
    if (done) return resultFromOutcome(done);
    if (call.approval === 'rejected') return unrunResult(call, 'rejected', rejectionText(call));
    const idempotent = options.toolSet.functions.get(call.toolName)?.idempotent === true;
    return unrunResult(call, 'aborted', cancelledText(call, idempotent));
  });
  return attachRunState(toAbortError(signal, error), state);
}
