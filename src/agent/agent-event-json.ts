import { safeErrorMessage } from '../tools/safe-error-message.js';
import type { AgentEvent } from './events.js';
import type { SseFrame } from './server-sse/sse-frame.js';

/** An error as it crosses the wire: name and message only (never the stack or `error.state`), secrets masked. */
export interface SerializedError {
  name: string;
  message: string;
}

/**
 * An `AgentEvent` as JSON: identical, except that errors and abort reasons become `SerializedError`s,
 * also inside the events a sub-agent forwards (`sub-agent`).
 */
export type AgentEventJson =
  | Exclude<AgentEvent, { type: 'tool-error' | 'error' | 'abort' | 'sub-agent' }>
  | { type: 'tool-error'; toolCallId: string; toolName: string; input: unknown; error: SerializedError }
  | { type: 'error'; error: SerializedError }
  | { type: 'abort'; reason?: SerializedError }
  | { type: 'sub-agent'; agent: string; toolCallId: string; event: AgentEventJson };

/** Serialises an error for a client. */
export function serializeError(error: unknown): SerializedError {
  const name = error instanceof Error ? error.name : 'Error';
  return { name, message: safeErrorMessage(error) };
}

/** The JSON form of an event, safe to send to a browser. */
export function toAgentEventJson(event: AgentEvent): AgentEventJson {
  switch (event.type) {
    case 'tool-error':
      return { ...event, error: serializeError(event.error) };
    case 'error':
      return { type: 'error', error: serializeError(event.error) };
    case 'abort':
      return event.reason === undefined
        ? { type: 'abort' }
        : { type: 'abort', reason: serializeError(event.reason) };
    case 'sub-agent':
      // A sub-agent's errors are masked like the parent's own.
      return { ...event, event: toAgentEventJson(event.event) };
    default:
      return event;
  }
}

/** The SSE frame of the `index`-th event of a run: its index is the event id. */
export function toAgentEventFrame(event: AgentEvent, index: number): SseFrame {
  return { id: String(index), data: JSON.stringify(toAgentEventJson(event)) };
}
