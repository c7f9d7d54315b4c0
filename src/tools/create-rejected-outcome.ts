import type { ToolCall } from '../api/types/chat.js';
import type { ToolCallOutcome } from './tool.js';

/**
 * The outcome of a call a person refused to approve: the tool never ran, and the model is told so, so it
 * can choose another way instead of retrying blindly.
 */
export function createRejectedOutcome(options: {
  call: ToolCall;
  input?: unknown;
  reason?: string;
}): ToolCallOutcome {
  const { call, reason } = options;
  const why = reason?.trim() ? `: ${reason.trim()}` : '';
  return {
    toolCallId: call.id,
    toolName: call.function.name,
    input: options.input ?? call.function.arguments,
    status: 'rejected',
    output: undefined,
    content: `The call of ${call.function.name} was not approved${why}. It did not run; do not retry it unchanged.`,
    executed: false,
  };
}
