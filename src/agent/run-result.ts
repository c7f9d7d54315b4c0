import type { AssistantMessage, ChatMessage, FinishReason, HostedToolCall } from '../api/types/chat.js';
import type { DocumentSource, ToolCallOutcome, ToolCallStatus } from '../tools/tool.js';
import type { RunAudio } from './run-audio.js';
import type { RunState } from './run-state.js';
import type { StepTiming } from './step-timing.js';
import type { AgentUsage } from './usage.js';

/** A function call the model asked for in a step. */
export interface StepToolCall {
  toolCallId: string;
  toolName: string;
  /** The exact arguments text the model sent. */
  arguments: string;
  /** The parsed arguments, or the raw text when they did not parse. */
  input: unknown;
}

/** What one function call produced: a tools-layer outcome without its error; `content` is the `tool` message. */
export interface StepToolResult
  extends Pick<ToolCallOutcome, 'toolCallId' | 'toolName' | 'input' | 'output' | 'content'> {
  /** How the call ended; `turn-limit` when the run reached `maxTurns` before the call could run. */
  status: ToolCallStatus | 'turn-limit';
  /** The documents the result drew on, when its tool names them (`search_knowledge_base` does). */
  sources?: DocumentSource[];
  /** When the tool started (epoch ms); absent when it never ran, or in states written before times were kept. */
  startedAt?: number;
  /** When the tool finished (epoch ms). */
  finishedAt?: number;
  /** True when the tool started while the model still streamed (an eager start). */
  eager?: true;
  /** The human decision the call waited for, and when it was asked and given. */
  approval?: ToolCallApprovalTiming;
}

/** When a call's approval was asked and decided (epoch ms). */
export interface ToolCallApprovalTiming {
  /** When the run paused for it. */
  requestedAt: number;
  /** When a human decided (absent when the state was decided before times were kept). */
  decidedAt?: number;
  /** What was decided. */
  decision: 'approved' | 'rejected';
}

/** A step answered by a fallback model: which model, and the models passed over before it. */
export interface StepFallback {
  /** The model that answered. */
  model: string;
  /** The models that failed first, in order, each with why (`status 429`, `status 503`, `timeout`). */
  failed: Array<{ model: string; reason: string }>;
}

/** One model request and the tools it led to. */
export interface AgentStep {
  /** 0-based index of the step in the run. */
  index: number;
  /** The assistant message as sent back to the service. */
  message: AssistantMessage;
  /** The answer text of this turn (may be empty on a tool turn). */
  text: string;
  /** The reasoning of this turn, whichever wire field carried it. */
  reasoning: string | undefined;
  /** The turn's spoken answer as a wav, when the request asked an audio model for audio. */
  audio?: RunAudio;
  toolCalls: StepToolCall[];
  /** Hosted calls (web search, retrieval) the service ran itself. */
  hostedToolCalls: HostedToolCall[];
  toolResults: StepToolResult[];
  /** This turn's usage (its final cumulative usage when streamed). */
  usage: AgentUsage;
  finishReason: FinishReason | null;
  /** Set when the agent's model was overloaded and a fallback model answered this step. */
  fallback?: StepFallback;
  /** When the step's request was made, answered and retried; absent in states written before times were kept. */
  timing?: StepTiming;
  /** The model the service says answered (the completion's `model`), when it named one. */
  model?: string;
}

/** A call that waits for `state.approve(toolCallId)` or `state.reject(toolCallId)`. */
export interface ToolApprovalItem {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** True for a client-side tool's call: it waits for its output (`supplyOutput`), not for an approval. */
  clientSide?: true;
}

interface RunResultBase {
  /** The final assistant text (of the last step). */
  text: string;
  /** The final spoken answer (of the last step) as a wav; write it with `writeWavFile`. */
  audio?: RunAudio;
  /** The whole conversation in wire format, ready to continue. */
  messages: ChatMessage[];
  steps: AgentStep[];
  /** Summed over turns. */
  usage: AgentUsage;
  /** The last turn's finish reason. */
  finishReason: FinishReason | null;
  /** Everything needed to resume (after approvals) or to continue later; serialises to JSON. */
  state: RunState;
  /** Name of the agent that answered last (after handoffs, the one that took over). */
  lastAgent?: string;
  /** The run's id (`options.runId`, or generated): its key in the agent's `store`, and `ctx.runId` of its tools. */
  runId: string;
  /** The documents the run's tool results drew on (knowledge-base files), each once, in the order found. */
  sources: DocumentSource[];
}

/** A run that ended with an answer. */
export interface CompletedRunResult<Output> extends RunResultBase {
  status: 'completed';
  /** The validated structured output when the agent has `output`, else `undefined`. */
  output: Output;
  interruptions: [];
}

/** A run paused for human approval of some tool calls. */
export interface InterruptedRunResult extends RunResultBase {
  status: 'interrupted';
  output: undefined;
  interruptions: ToolApprovalItem[];
}

/** What `agent.run` resolves to; narrow on `status` to read `output` without `undefined`. */
export type RunResult<Output = undefined> = CompletedRunResult<Output> | InterruptedRunResult;
