import type { ChatMessage, ToolDefinition } from '../api/types/chat.js';
import type { AgentEvent } from './events.js';
import type { CreateChatCompletion } from './loop/call-model.js';
import { neverAborted } from './loop/run-signal.js';
import type { NormalizedAgentOptions } from './normalize-agent-options.js';
import type { RunResult } from './run-result.js';
import type { RunState } from './run-state.js';

/** What an instrumentation learns when a run starts. */
export interface RunInstrumentationInfo {
  /** Name of the agent the run was started on (its `name` option). */
  agentName: string;
  /** The run continues a saved state (`agent.run(state)`, `agent.resume`, `agent.approve`). */
  resumed: boolean;
  /** Model of the run's requests. */
  model: string;
  /** The agent's instructions (its first system message). */
  instructions: string | undefined;
  /** Tool definitions sent with each request. */
  tools: readonly ToolDefinition[];
  /** The conversation the run starts from. */
  messages: readonly ChatMessage[];
  /** Calls a resumed run runs first (empty for a new run; calls already answered in its ledger are left out). */
  pendingToolCalls: ReadonlyArray<{ toolCallId: string; toolName: string; arguments: string }>;
  /** Abort signal of the run. */
  signal: AbortSignal;
}

/** One run as an instrumentation sees it: its events, its model calls, its end. */
export interface RunInstrumentation {
  /** Every event of the run, as it happens (also for `agent.run`). */
  onEvent?(event: AgentEvent): void;
  /** Wraps each model request (the chat call itself, after context management). */
  wrapModelCall?(create: CreateChatCompletion): CreateChatCompletion;
  /** The run ended: its result, or the error it failed with. */
  end(outcome: { result?: RunResult<unknown>; error?: unknown }): void;
}

/**
 * Observes runs (tracing, metrics) without the agent knowing how: `new Agent({ instrumentation })`.
 * `openTelemetry()` from `svc-agents/telemetry` is one.
 */
export interface AgentInstrumentation {
  /** Called as each run starts; may resolve to nothing to leave the run unobserved. */
  startRun(
    info: RunInstrumentationInfo,
  ): RunInstrumentation | undefined | Promise<RunInstrumentation | undefined>;
}

/**
 * The run's `emit` with the agent's instrumentation attached, how to attach it to the model call of each
 * agent in charge, and how to report the run's end.
 */
export async function instrumentRun(
  instrumentation: AgentInstrumentation,
  agent: NormalizedAgentOptions,
  run: {
    state: RunState;
    resumed: boolean;
    signal: AbortSignal | undefined;
    emit: ((event: AgentEvent) => void) | undefined;
  },
): Promise<{
  emit: ((event: AgentEvent) => void) | undefined;
  wrapModelCall: (create: CreateChatCompletion) => CreateChatCompletion;
  end: RunInstrumentation['end'];
}> {
  const { state, signal, emit } = run;
  const observer = await instrumentation.startRun({
    agentName: agent.name,
    resumed: run.resumed || state.pendingToolCalls.length > 0,
    model: agent.model,
    instructions: agent.instructions,
    tools: agent.toolSet.definitions,
    messages: state.messages,
    // A call answered in the ledger (before a crash, or before a pause) is not run again.
    pendingToolCalls: state.pendingToolCalls.filter((call) => !state.ledger.has(call.toolCallId)),
    signal: signal ?? neverAborted,
  });
  if (!observer) return { emit, wrapModelCall: (create) => create, end: () => {} };
  const wrapModelCall = (create: CreateChatCompletion) =>
    observer.wrapModelCall ? observer.wrapModelCall(create) : create;
  return {
    emit: observer.onEvent
      ? (event) => {
          observer.onEvent?.(event);
          emit?.(event);
        }
      : emit,
    wrapModelCall,
    end: (outcome) => observer.end(outcome),
  };
}
