import type { FinishReason, WebSearchResult } from '../api/types/chat.js';
import type { DocumentSource } from '../tools/tool.js';
import type { ContextOverflowEvent } from './context/context-overflow-event.js';
import type { AgentUsage } from './usage.js';

/** The run began. */
export interface StartEvent {
  type: 'start';
}
/** A model request (turn) began; `step` is its 0-based index in `result.steps`. */
export interface StartStepEvent {
  type: 'start-step';
  step: number;
}
/** A piece of the model's reasoning (`reasoning` or `reasoning_content` on the wire). */
export interface ReasoningDeltaEvent {
  type: 'reasoning-delta';
  text: string;
}
/** A piece of the assistant's answer text. */
export interface TextDeltaEvent {
  type: 'text-delta';
  text: string;
}
/** The model started a function call; its arguments follow as `tool-input-delta`. */
export interface ToolInputStartEvent {
  type: 'tool-input-start';
  toolCallId: string;
  toolName: string;
}
/** A fragment of a function call's JSON arguments, as streamed. */
export interface ToolInputDeltaEvent {
  type: 'tool-input-delta';
  toolCallId: string;
  delta: string;
}
/** A complete function call; `input` is the parsed arguments (the raw text when they did not parse). */
export interface ToolCallEvent {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Set when the call cannot run (arguments that fail the schema, an unknown tool): a `tool-error` follows. */
  invalid?: true;
}
/** A function call finished; `output` is what the tool returned. */
export interface ToolResultEvent {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  input: unknown;
  output: unknown;
  /** True when the output was supplied by the caller for a client-side tool (one without `execute`). */
  clientSide?: true;
}
/** A function call failed (bad arguments, unknown tool, throw, timeout, abort, rejection); the model is told. */
export interface ToolErrorEvent {
  type: 'tool-error';
  toolCallId: string;
  toolName: string;
  input: unknown;
  error: Error;
}
/** The service ran one of its hosted tools (web search, retrieval); nothing runs locally. */
export interface HostedToolCallEvent {
  type: 'hosted-tool-call';
  toolType: string;
  toolCallId: string;
  name?: string;
  arguments?: string;
  results?: WebSearchResult[];
}
/**
 * A document a tool result drew on (a `search_knowledge_base` passage's file): `{ sourceType: 'document',
 * id, title, fileId }`, named as the AI SDK's `source-document` parts.
 */
export interface SourceEvent extends DocumentSource {
  type: 'source';
  /** The call whose result cites it. */
  toolCallId: string;
}
/** A piece of audio output (base64) and of its transcript. */
export interface AudioDeltaEvent {
  type: 'audio-delta';
  data: string;
  transcript?: string;
}
/** A call waits for a human decision; the run pauses with it in `result.interruptions`. */
export interface ToolApprovalRequestEvent {
  type: 'tool-approval-request';
  toolCallId: string;
  toolName: string;
  input: unknown;
}
/** A turn ended (after its tools ran). */
export interface FinishStepEvent {
  type: 'finish-step';
  step: number;
  finishReason: FinishReason | null;
  usage: AgentUsage;
}
/** The run ended (also when paused for approvals); `usage` is summed over its turns. */
export interface FinishEvent {
  type: 'finish';
  finishReason: FinishReason | null;
  usage: AgentUsage;
}
/** The run failed; the iterator then throws this same error. */
export interface ErrorEvent {
  type: 'error';
  error: unknown;
}
/** The run was aborted; the iterator then throws an `APIUserAbortError` carrying `state`. */
export interface AbortEvent {
  type: 'abort';
  reason?: unknown;
}
/** The conversation moved to another agent (a handoff); the next events are that agent's. */
export interface HandoffEvent {
  type: 'handoff';
  /** Name of the agent that handed off. */
  from: string;
  /** Name of the agent that takes over. */
  to: string;
  toolCallId: string;
}
/** The service was overloaded on a model: the turn is sent again on the next fallback model. */
export interface ModelFallbackEvent {
  type: 'model-fallback';
  /** The step whose request moves. */
  step: number;
  /** The model that failed. */
  from: string;
  /** The model the request is sent to now. */
  to: string;
  /** Why: `status 429` (after the client's retries), `status 503` (any 5xx), or `timeout`. */
  reason: string;
}
/** An event of an agent run as a tool (`agent.asTool`), forwarded to the parent run. */
export interface SubAgentEvent {
  type: 'sub-agent';
  /** Name of the sub-agent. */
  agent: string;
  /** The parent's call of the agent tool. */
  toolCallId: string;
  /** The sub-agent's own event. */
  event: AgentEvent;
}

/** Everything an `AgentStream` yields, keyed by `type` (names as in the Vercel AI SDK). */
export type AgentEvent =
  | StartEvent
  | StartStepEvent
  | ReasoningDeltaEvent
  | TextDeltaEvent
  | ToolInputStartEvent
  | ToolInputDeltaEvent
  | ToolCallEvent
  | ToolResultEvent
  | ToolErrorEvent
  | HostedToolCallEvent
  | SourceEvent
  | AudioDeltaEvent
  | ToolApprovalRequestEvent
  | FinishStepEvent
  | FinishEvent
  | ErrorEvent
  | AbortEvent
  | ContextOverflowEvent
  | HandoffEvent
  | ModelFallbackEvent
  | SubAgentEvent;

/** The `type` of any agent event. */
export type AgentEventType = AgentEvent['type'];

/** Event map of the `AgentStream` emitter: one labelled tuple per event type, plus `event` for all of them. */
export type AgentEventMap = { [K in AgentEventType]: [event: Extract<AgentEvent, { type: K }>] } & {
  event: [event: AgentEvent];
};
