import type { ChatMessage, ToolDefinition } from '../api/types/chat.js';
import type { CreateChatCompletion } from './call-model.js';
import type { AgentEvent } from './events.js';
import type { RunResult } from './run-result.js';

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
 * The run's `emit` and model call with the instrumentation attached, how to attach it to another agent's
 * model call (a handoff), and how to report the run's end.
 */
export async function instrumentRun(
  instrumentation: AgentInstrumentation,
  info: RunInstrumentationInfo,
  run: { emit: (event: AgentEvent) => void; create: CreateChatCompletion },
): Promise<{
  emit: (event: AgentEvent) => void;
  create: CreateChatCompletion;
  wrapModelCall: (create: CreateChatCompletion) => CreateChatCompletion;
  end: RunInstrumentation['end'];
}> {
  const observer = await instrumentation.startRun(info);
  if (!observer) return { ...run, wrapModelCall: (create) => create, end: () => {} };
  const wrapModelCall = (create: CreateChatCompletion) =>
    observer.wrapModelCall ? observer.wrapModelCall(create) : create;
  const { emit } = run;
  return {
    emit: observer.onEvent
      ? (event) => {
          observer.onEvent?.(event);
          emit(event);
        }
      : emit,
    create: wrapModelCall(run.create),
    wrapModelCall,
    end: (outcome) => observer.end(outcome),
  };
}
