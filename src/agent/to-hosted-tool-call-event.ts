import type { HostedToolCall } from '../api/types/chat.js';
import type { HostedToolCallEvent } from './events.js';

/** The event reporting a call the service ran itself (web search, retrieval). */
export function toHostedToolCallEvent(call: HostedToolCall): HostedToolCallEvent {
  const event: HostedToolCallEvent = { type: 'hosted-tool-call', toolType: call.type, toolCallId: call.id };
  if (call.function.name !== undefined) event.name = call.function.name;
  if (call.function.arguments !== undefined) event.arguments = call.function.arguments;
  if (call.function.results !== undefined) event.results = call.function.results;
  return event;
}
