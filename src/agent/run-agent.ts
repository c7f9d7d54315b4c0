import type { z } from 'zod';
import type { SvcClient } from '../api/svc-client.js';
import { cancelledText } from '../tools/execute-tool-call.js';
import type { ToolSet } from '../tools/tool.js';
import { buildRequest, systemMessage } from './build-request.js';
import { buildRunResult } from './build-run-result.js';
import { type CreateChatCompletion, callModel } from './call-model.js';
import { callModelWithFallback } from './call-model-with-fallback.js';
import { checkFinalOutput } from './check-final-output.js';
import { priceStep } from './cost/price-step.js';
import { distinctToolCallIds } from './distinct-tool-call-ids.js';
import type { DurableHooks } from './durable/durable-run.js';
import { refreshToolSet } from './dynamic-tools.js';
import { createEagerToolStarter, type EagerToolStarter } from './eager-tool-starter.js';
import { attachRunState } from './errors/attach-run-state.js';
import { MaxTurnsExceededError } from './errors/max-turns-exceeded-error.js';
import { throwIfAborted, toAbortError } from './errors/to-abort-error.js';
import type { AgentEvent } from './events.js';
import { executeTurnTools } from './execute-turn-tools.js';
import type { NormalizedAgentOptions } from './normalize-agent-options.js';
import { needsApprovalCheck, prepareToolCalls, requestApprovals } from './prepare-tool-calls.js';
import { recordStep } from './record-step.js';
import type { AgentStep, RunResult } from './run-result.js';
import { runInScope, toolSetNeedsScope } from './run-scope.js';
import type { RunState } from './run-state.js';
import {
  rejectionText,
  resultFromOutcome,
  settlePendingCalls,
  turnLimitText,
  unrunResult,
} from './settle-pending-calls.js';
import type { OutputRequest } from './structured-output.js';
import { toAssistantMessage } from './to-assistant-message.js';

/** Everything one run needs: the agent's normalised options (shared, by reference) and this run's own. */
export interface RunAgentOptions {
  /** The agent's options, checked once and shared by all its runs: a run never changes them. */
  agent: NormalizedAgentOptions;
  /** The run's conversation, steps, usage and pending calls (changed in place; a failure leaves it resumable). */
  state: RunState;
  /** The current step's tools: the agent's, or what its `tools` function answered for the step. */
  toolSet: ToolSet;
  /** The structured output's schema and the request fields it adds, when the agent has `output`. */
  output: { schema: z.ZodType; request: OutputRequest } | undefined;
  /** Model requests allowed in this invocation. */
  maxTurns: number;
  /** Whether model answers are streamed (`agent.stream`, or the run option `stream`). */
  stream: boolean;
  /** The caller's context, handed to tools and hooks. */
  context: unknown;
  /** The client handed to tools as `ctx.client`. */
  client: SvcClient | undefined;
  /** The model call, with instrumentation and context management already put around it. */
  create: CreateChatCompletion;
  /** Aborts the request in flight and the running tools. */
  signal: AbortSignal;
  /** Where the run's events go; absent when nobody observes them, so none is built. */
  emit?: ((event: AgentEvent) => void) | undefined;
  /** The run's id, handed to tools as `ctx.runId`. */
  runId: string;
  /** Awaited before any tool of the run starts (input guardrails running alongside the first request). */
  beforeTools?: (() => Promise<void>) | undefined;
  /** Checkpoints of a run kept in a store. */
  durable?: DurableHooks | undefined;
}

/**
 * The agent loop: prepare the turn, call the model, record its answer, and either return the final answer
 * or run the requested tools and decide whether to stop. A run resumed with pending calls starts at their
 * tools. Any failure leaves `state` valid to resume and is thrown with it as `error.state`.
 */
export async function runAgent(run: RunAgentOptions): Promise<RunResult<unknown>> {
  const { agent, state, signal, emit } = run;
  // The one turn counter is the state's: this invocation's requests are the turns since it started.
  const firstTurn = state.turn;
  const system = systemMessage(agent.instructions, run.output?.request);
  emit?.({ type: 'start' });
  // The current turn's early-started tools: whatever fails before its tools run, they are aborted.
  let eager: EagerToolStarter | undefined;
  try {
    for (let resumed = state.pendingToolCalls.length > 0; ; resumed = false) {
      let step: AgentStep;
      if (resumed) {
        step = state.steps.at(-1)!;
        await refreshToolSet(run, step.index);
        // A resumed durable run settles what the stopped process left in flight, with these tools.
        await run.durable?.recover?.(state, run.toolSet);
      } else {
        throwIfAborted(signal);
        const index = state.steps.length;
        emit?.({ type: 'start-step', step: index });
        await agent.hooks.onStepStart?.({ step: index, messages: state.messages, state });
        await refreshToolSet(run, index);
        const params = buildRequest({
          model: agent.model,
          system,
          messages: state.messages,
          tools: run.toolSet.definitions,
          modelSettings: agent.modelSettings,
          output: run.output?.request,
          stream: run.stream,
        });
        // Not on the last allowed turn (its calls are answered "not run"), nor while input guardrails that
        // tools must wait for are still running.
        const lastTurn = state.turn - firstTurn + 1 >= run.maxTurns;
        eager = run.stream && !lastTurn && !run.beforeTools ? startEagerly(run, index) : undefined;
        const call = { create: run.create, params, signal, emit, generateId: agent.generateId, eager };
        // Without fallback models the turn takes the plain path.
        const { completion, fallback } =
          agent.fallbackModels.length > 0
            ? await callModelWithFallback({ ...call, fallbackModels: agent.fallbackModels, step: index })
            : { completion: await callModel(call), fallback: undefined };
        const message = completion.choices[0]?.message ?? { role: 'assistant' as const, content: '' };
        const turn = toAssistantMessage(message, agent.generateId);
        // Before the turn enters the history: a reused id must neither hit the ledger nor pair two answers.
        distinctToolCallIds(turn.functionCalls, state);
        // Pending with the step, before anything else can fail: a failed run resumes by answering them.
        const pending = prepareToolCalls(turn.functionCalls, run.toolSet, emit);
        step = recordStep(state, completion, turn, pending, fallback);
        if (agent.prices) priceStep(state, step, params, completion, agent.prices);

        // A message with function calls is a tool turn whatever its finish_reason says.
        if (state.pendingToolCalls.length === 0) {
          await finishStep(run, step);
          const turnsLeft = run.maxTurns - (state.turn - firstTurn);
          const checked = checkFinalOutput({ schema: run.output?.schema, step, state, turnsLeft });
          if (checked === 'repair') continue;
          return finish(run, 'completed', checked.output);
        }
        if (lastTurn) {
          settlePendingCalls(state, (call) =>
            unrunResult(call, 'turn-limit', turnLimitText(call, run.maxTurns)),
          );
          await finishStep(run, step);
          const result = buildRunResult<unknown>(state, 'completed', undefined, run.runId);
          throw new MaxTurnsExceededError({ maxTurns: run.maxTurns, result, state });
        }
        if (needsApprovalCheck(state.pendingToolCalls, run.toolSet)) {
          await requestApprovals({
            pending: state.pendingToolCalls,
            toolSet: run.toolSet,
            context: run.context,
            client: run.client,
            signal,
            emit,
            runId: run.runId,
            step: step.index,
          });
        }
      }

      if ((await runTools(run, eager)) === 'interrupted') {
        // A resumed step that pauses again emits no second `finish-step`.
        if (!resumed) emitFinishStep(emit, step);
        return finish(run, 'interrupted');
      }
      await finishStep(run, step);
      if (await agent.stopWhen({ steps: state.steps })) return finish(run, 'completed');
    }
  } catch (error) {
    eager?.discard();
    throw failRun(run, error);
  }
}

async function runTools(
  run: RunAgentOptions,
  eager: EagerToolStarter | undefined,
): Promise<'settled' | 'interrupted'> {
  const { agent, state, toolSet, emit, durable } = run;
  await run.beforeTools?.();
  // A durable run checkpoints the model's turn before any of its tools starts.
  await durable?.beforeTools(state);
  const execute = () =>
    executeTurnTools({
      state,
      toolSet,
      context: run.context,
      client: run.client,
      signal: run.signal,
      emit,
      concurrency: agent.toolConcurrency,
      eager,
      runId: run.runId,
      onToolFinished: durable && (() => durable.afterToolCall(state)),
      maxOutputChars: agent.maxToolOutputChars,
    });
  // Tools that run agents (`agent.asTool`) find this run's events, usage and state through the scope.
  return toolSetNeedsScope(toolSet) ? runInScope({ agentName: agent.name, state, emit }, execute) : execute();
}

function startEagerly(run: RunAgentOptions, step: number): EagerToolStarter | undefined {
  return createEagerToolStarter({
    toolSet: run.toolSet,
    context: run.context,
    client: run.client,
    signal: run.signal,
    concurrency: run.agent.toolConcurrency,
    runId: run.runId,
    step,
    maxOutputChars: run.agent.maxToolOutputChars,
  });
}

async function finishStep(run: RunAgentOptions, step: AgentStep): Promise<void> {
  emitFinishStep(run.emit, step);
  await run.agent.hooks.onStepFinish?.({ step, state: run.state });
}

function emitFinishStep(emit: RunAgentOptions['emit'], step: AgentStep): void {
  emit?.({ type: 'finish-step', step: step.index, finishReason: step.finishReason, usage: step.usage });
}

function finish(
  run: RunAgentOptions,
  status: 'completed' | 'interrupted',
  output?: unknown,
): RunResult<unknown> {
  const result = buildRunResult(run.state, status, output, run.runId);
  run.emit?.({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
  return result;
}

/**
 * Makes the failure resumable: on abort, every pending call gets its one `tool` message (its finished
 * outcome, else "cancelled"), and the error is the transport's `APIUserAbortError`; any error carries
 * the state as a non-enumerable `error.state`.
 */
function failRun(run: RunAgentOptions, error: unknown): unknown {
  const { state, signal } = run;
  if (!signal.aborted) return attachRunState(error, state);
  settlePendingCalls(state, (call) => {
    const done = state.ledger.get(call.toolCallId);
    if (done) return resultFromOutcome(done);
    if (call.approval === 'rejected') return unrunResult(call, 'rejected', rejectionText(call));
    const idempotent = run.toolSet.functions.get(call.toolName)?.idempotent === true;
    return unrunResult(call, 'aborted', cancelledText(call.toolName, idempotent));
  });
  return attachRunState(toAbortError(signal, error), state);
}
