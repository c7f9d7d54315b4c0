import type { SystemMessage } from '../../api/types/chat.js';
import { cancelledText, rejectionText, turnLimitText } from '../../tools/model-texts.js';
import type { ToolSet } from '../../tools/tool.js';
import { isPromiseLike } from '../../tools/utils.js';
import type { AgentCore, OutputSpec } from '../agent-core.js';
import { instrumentRun } from '../agent-instrumentation.js';
import { priceStep } from '../cost/price-step.js';
import type { DurableHooks } from '../durable/stored-run-writer.js';
import { attachRunState, MaxTurnsExceededError } from '../errors.js';
import type { AgentEvent } from '../events.js';
import { checkInput, checkOutput, type InputCheck } from '../guardrails/run-guardrails.js';
import { agentInCharge, requestedHandoff } from '../handoffs/handoff.js';
import type { NormalizedAgentOptions } from '../normalize-agent-options.js';
import type { RequestBudget } from '../request-budget.js';
import type { AgentStep, RunResult } from '../run-result.js';
import type { RunState } from '../run-state.js';
import { StepTimer } from '../step-timing.js';
import { buildRequest, systemMessage } from './build-request.js';
import { buildRunResult } from './build-run-result.js';
import { type CreateChatCompletion, callModel } from './call-model.js';
import { callModelWithFallback } from './call-model-with-fallback.js';
import { checkFinalOutput } from './check-final-output.js';
import { distinctToolCallIds } from './distinct-tool-call-ids.js';
import { createEagerToolStarter, type EagerToolStarter } from './eager-tool-starter.js';
import { executeTurnTools, type TurnToolContext } from './execute-turn-tools.js';
import { needsApprovalCheck, prepareToolCalls, requestApprovals } from './prepare-tool-calls.js';
import { recordStep } from './record-step.js';
import { runInScope, toolSetNeedsScope } from './run-scope.js';
import { neverAborted, throwIfAborted, toAbortError } from './run-signal.js';
import { resultFromOutcome, settlePendingCalls, unrunResult } from './settle-pending-calls.js';
import { toAssistantMessage } from './to-assistant-message.js';

/** What `agent.run` / `agent.stream` / `agent.resume` hand the loop, unpacked once, here. */
export interface RunAgentOptions {
  /** The agent the run was called on; a saved run may be in the charge of one it handed off to. */
  agent: AgentCore;
  /** The run's conversation, steps, usage, pending calls, agent in charge and repair counters (changed in place). */
  state: RunState;
  /** The tools of the agent the run was called on (with the run's own knowledge bases, if any). */
  toolSet: ToolSet;
  /** Model requests allowed in this invocation. */
  maxTurns: number;
  /** Whether model answers are streamed (`agent.stream`, or the run option `stream`). */
  stream: boolean;
  /** The caller's context, handed to tools, hooks and guardrails. */
  context: unknown;
  /** Aborts the request in flight and the running tools; absent when the caller gave none. */
  signal: AbortSignal | undefined;
  /** Where the run's events go; absent when nobody observes them, so none is built. */
  emit: ((event: AgentEvent) => void) | undefined;
  /** The run's id (`result.runId`, `ctx.runId`). */
  runId: string;
  /** The input was a saved state: its input was checked when it started. */
  resumed: boolean;
  /** A budget shared with other runs, nearest the network: each request (a fallback's too) waits for it. */
  requestBudget: RequestBudget | undefined;
  /** Checkpoints of a run kept in a store. */
  durable: DurableHooks | undefined;
}

/** The agent in charge of the run, with what the loop needs of it until a handoff replaces it. */
interface InCharge {
  core: AgentCore;
  toolSet: ToolSet;
  output: OutputSpec | undefined;
  system: SystemMessage | undefined;
  create: CreateChatCompletion;
}

/**
 * Runs an agent: the one loop of every run, plain, composed (handoffs, guardrails), streamed or not.
 * Wraps the loop in the agent's instrumentation when it has one.
 */
export async function runAgent(run: RunAgentOptions): Promise<RunResult<unknown>> {
  const { instrumentation } = run.agent.options;
  if (instrumentation === undefined) return loop(run, run.emit, undefined);
  const observed = await instrumentRun(instrumentation, run.agent.options, run);
  try {
    const result = await loop(run, observed.emit, observed.wrapModelCall);
    observed.end({ result });
    return result;
  } catch (error) {
    observed.end({ error });
    throw error;
  }
}

/**
 * The agent loop: check the input, then prepare the turn, call the model, record its answer, and either
 * run the requested tools and decide whether to stop (or hand off), or check the final answer and return
 * it. A run resumed with pending calls starts at their tools. Any failure leaves `state` valid to resume
 * and is thrown with it as `error.state`.
 */
async function loop(
  run: RunAgentOptions,
  emit: RunAgentOptions['emit'],
  observe: ((create: CreateChatCompletion) => CreateChatCompletion) | undefined,
): Promise<RunResult<unknown>> {
  const { state } = run;
  // The budget of this invocation: every agent taking part shares it.
  state.turnLimit = state.turn + run.maxTurns;
  let limit: ((create: CreateChatCompletion) => CreateChatCompletion) | undefined;
  if (run.requestBudget) {
    const { withRequestBudget } = await import('../request-budget.js');
    const budget = run.requestBudget;
    limit = (create) => withRequestBudget(create, budget);
  }
  // Every agent taking over goes through the same budget and instrumentation, then its own context window.
  const takeCharge = async (core: AgentCore, toolSet: ToolSet): Promise<InCharge> => {
    let create = limit ? limit(core.create) : core.create;
    if (observe) create = observe(create);
    const output = core.output();
    return {
      core,
      toolSet,
      output,
      system: systemMessage(core.options.instructions, output?.request),
      create: await core.withContextWindow(create, state, emit),
    };
  };
  const first = agentInCharge(run.agent, state);
  let agent = await takeCharge(first, first === run.agent ? run.toolSet : first.options.toolSet);
  let signal = run.signal;
  let input: InputCheck | undefined;
  // The current turn's early-started tools: whatever fails before its tools run, they are aborted.
  let eager: EagerToolStarter | undefined;
  // The model request in progress: a request that fails is kept on the state as a fault.
  let timer: StepTimer | undefined;
  try {
    // Until the run's first model turn (a queued run starts through `resume`), its input is unchecked.
    const inputGuards = agent.core.options.inputGuardrails;
    if (inputGuards.length > 0 && !(run.resumed && state.steps.length > 0)) {
      input = await checkInput(inputGuards, state, run.context, agent.core.options.name, signal);
      if (input) signal = input.signal;
    }
    emit?.({ type: 'start' });
    for (let resumed = state.pendingToolCalls.length > 0; ; resumed = false) {
      const options = agent.core.options;
      let step: AgentStep;
      let turn: TurnToolContext;
      if (resumed) {
        step = state.steps.at(-1)!;
        if (options.resolveTools) await refreshTools(run, agent, step.index);
        turn = turnToolContext(run, agent, signal, emit, step.index);
        // A resumed durable run settles what the stopped process left in flight, with these tools.
        await run.durable?.recover?.(state, turn.toolSet);
      } else {
        throwIfAborted(signal);
        const index = state.steps.length;
        emit?.({ type: 'start-step', step: index });
        // Awaited only when present, as every optional hook and check of this loop: an `await` of
        // `undefined` still costs a microtask turn, and a tool run passes a dozen of them for nothing
        // (bench/results/2026-11-26-floor.md).
        const { hooks } = options;
        if (hooks.onStepStart) await hooks.onStepStart({ step: index, messages: state.messages, state });
        if (options.resolveTools) await refreshTools(run, agent, index);
        turn = turnToolContext(run, agent, signal, emit, index);
        const params = buildRequest({
          model: options.model,
          system: agent.system,
          messages: state.messages,
          tools: turn.toolSet.definitions,
          modelSettings: options.modelSettings,
          output: agent.output?.request,
          stream: run.stream,
        });
        // Not on the last allowed turn (its calls are answered "not run"), nor while input guardrails that
        // tools must wait for may still be running.
        const lastTurn = state.turn + 1 >= state.turnLimit;
        eager = run.stream && !lastTurn && !input ? createEagerToolStarter(turn) : undefined;
        timer = new StepTimer();
        const call = {
          create: agent.create,
          params,
          signal,
          emit,
          generateId: options.generateId,
          eager,
          timer,
        };
        // Without fallback models the turn takes the plain path.
        const { completion, fallback } =
          options.fallbackModels.length > 0
            ? await callModelWithFallback({ ...call, fallbackModels: options.fallbackModels, step: index })
            : { completion: await callModel(call), fallback: undefined };
        const message = completion.choices[0]?.message ?? { role: 'assistant' as const, content: '' };
        const assistant = toAssistantMessage(message, options.generateId);
        // Before the turn enters the history: a reused id must neither hit the ledger nor pair two answers.
        distinctToolCallIds(assistant.functionCalls, state);
        // Pending with the step, before anything else can fail: a failed run resumes by answering them.
        const pending = prepareToolCalls(assistant.functionCalls, turn.toolSet, emit);
        step = recordStep(state, completion, assistant, pending, fallback);
        step.timing = timer.done();
        timer = undefined;
        if (options.prices) priceStep(state, step, params, completion, options.prices);

        // A message with function calls is a tool turn whatever its finish_reason says.
        if (state.pendingToolCalls.length === 0) {
          const finished = finishStep(run, options, emit, step);
          if (finished) await finished;
          const turnsLeft = state.turnLimit - state.turn;
          const checked = checkFinalOutput({ schema: agent.output?.schema, step, state, turnsLeft });
          if (checked === 'repair') continue;
          // The final answer's hooks: the input guardrails still running, then the output guardrails.
          if (input) await input.passed();
          if (options.outputGuardrails.length > 0) {
            const args = {
              value: checked.output ?? step.text,
              text: step.text,
              messages: state.messages,
              context: run.context,
              agent: options.name,
              signal: signal ?? neverAborted,
            };
            if ((await checkOutput(options.outputGuardrails, args, state)) === 'repair') continue;
          }
          return finish(run, agent, emit, 'completed', checked.output);
        }
        if (lastTurn) {
          settlePendingCalls(state, (call) =>
            unrunResult(call, 'turn-limit', turnLimitText(call.toolName, run.maxTurns)),
          );
          const finished = finishStep(run, options, emit, step);
          if (finished) await finished;
          const result = resultOf(run, agent, 'completed', undefined);
          throw new MaxTurnsExceededError({ maxTurns: run.maxTurns, result, state });
        }
        if (needsApprovalCheck(state.pendingToolCalls, turn.toolSet)) {
          await requestApprovals(state.pendingToolCalls, turn);
        }
      }

      if ((await runTools(run, options.name, turn, eager, input)) === 'interrupted') {
        // A resumed step that pauses again emits no second `finish-step`.
        if (!resumed) emitFinishStep(emit, step);
        return finish(run, agent, emit, 'interrupted');
      }
      const finished = finishStep(run, options, emit, step);
      if (finished) await finished;
      const stop = options.stopWhen({ steps: state.steps });
      if (isPromiseLike(stop) ? await stop : stop) {
        const requested = requestedHandoff(step, options.handoffs);
        if (requested === undefined) return finish(run, agent, emit, 'completed');
        // A handoff: the target takes charge of the same state (filtered history, shared turn budget).
        const next = requested.handoff.core;
        const from = options.name;
        const to = next.options.name;
        const filter = requested.handoff.inputFilter;
        if (filter) state.messages = filter({ messages: [...state.messages], from, to });
        emit?.({ type: 'handoff', from, to, toolCallId: requested.toolCallId });
        state.currentAgent = to;
        agent = await takeCharge(next, next.options.toolSet);
      }
    }
  } catch (error) {
    eager?.discard();
    if (timer) state.faults.push(timer.failed(state.steps.length, error));
    const failure = failRun(run, agent.toolSet, signal, error);
    // An input tripwire aborts the request in flight: report the tripwire, not the abort it caused.
    throw input?.tripped ?? failure;
  } finally {
    input?.release();
  }
}

/** Asks the agent's `tools` function for the step's tools. */
async function refreshTools(run: RunAgentOptions, agent: InCharge, step: number): Promise<void> {
  const resolve = agent.core.options.resolveTools!;
  agent.toolSet = await resolve({ step, messages: run.state.messages, context: run.context });
}

/** The turn's tool context: built once per turn, the one object approvals, early starts and execution share. */
function turnToolContext(
  run: RunAgentOptions,
  agent: InCharge,
  signal: AbortSignal | undefined,
  emit: RunAgentOptions['emit'],
  step: number,
): TurnToolContext {
  const options = agent.core.options;
  return {
    toolSet: agent.toolSet,
    context: run.context,
    client: agent.core.client,
    signal,
    runId: run.runId,
    step,
    maxOutputChars: options.maxToolOutputChars,
    concurrency: options.toolConcurrency,
    emit,
  };
}

async function runTools(
  run: RunAgentOptions,
  agentName: string,
  turn: TurnToolContext,
  eager: EagerToolStarter | undefined,
  input: InputCheck | undefined,
): Promise<'settled' | 'interrupted'> {
  const { state, durable } = run;
  // Tools wait for the input guardrails running alongside the first request.
  if (input) await input.passed();
  // A durable run checkpoints the model's turn before any of its tools starts.
  if (durable) await durable.beforeTools(state);
  const onToolFinished = durable && (() => durable.afterToolCall(state));
  // Tools that run agents (`agent.asTool`) find this run's events, usage and state through the scope.
  if (!toolSetNeedsScope(turn.toolSet)) return executeTurnTools(turn, state, eager, onToolFinished);
  return runInScope({ agentName, state, emit: turn.emit }, () =>
    executeTurnTools(turn, state, eager, onToolFinished),
  );
}

/** Emits `finish-step` and runs the `onStepFinish` hook: a promise to await only when there is a hook. */
function finishStep(
  run: RunAgentOptions,
  options: NormalizedAgentOptions,
  emit: RunAgentOptions['emit'],
  step: AgentStep,
): Promise<void> | undefined {
  emitFinishStep(emit, step);
  const { hooks } = options;
  return hooks.onStepFinish ? Promise.resolve(hooks.onStepFinish({ step, state: run.state })) : undefined;
}

function emitFinishStep(emit: RunAgentOptions['emit'], step: AgentStep): void {
  emit?.({ type: 'finish-step', step: step.index, finishReason: step.finishReason, usage: step.usage });
}

function finish(
  run: RunAgentOptions,
  agent: InCharge,
  emit: RunAgentOptions['emit'],
  status: 'completed' | 'interrupted',
  output?: unknown,
): RunResult<unknown> {
  const result = resultOf(run, agent, status, output);
  emit?.({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
  return result;
}

/** The run's result as it stands, naming the agent in charge as `lastAgent`. */
function resultOf(
  run: RunAgentOptions,
  agent: InCharge,
  status: 'completed' | 'interrupted',
  output: unknown,
): RunResult<unknown> {
  const result = buildRunResult(run.state, status, output, run.runId);
  result.lastAgent = agent.core.options.name;
  return result;
}

/**
 * Makes the failure resumable: on abort, every pending call gets its one `tool` message (its finished
 * outcome, else "cancelled"), and the error is the transport's `APIUserAbortError`; any error carries
 * the state as a non-enumerable `error.state`.
 */
function failRun(
  run: RunAgentOptions,
  toolSet: ToolSet,
  signal: AbortSignal | undefined,
  error: unknown,
): unknown {
  const { state } = run;
  if (!signal?.aborted) return attachRunState(error, state);
  settlePendingCalls(state, (call) => {
    const done = state.ledger.get(call.toolCallId);
    if (done) return resultFromOutcome(done);
    if (call.approval === 'rejected')
      return unrunResult(call, 'rejected', rejectionText(call.toolName, call.rejectionMessage));
    const idempotent = toolSet.functions.get(call.toolName)?.idempotent === true;
    return unrunResult(call, 'aborted', cancelledText(call.toolName, idempotent));
  });
  return attachRunState(toAbortError(signal, error), state);
}
