import type { ChatMessage } from '../../api/types/chat.js';

/** A conversation cut into what may be dropped (older turns) and what must stay. */
export interface ConversationTurns {
  /** Where the current turn starts: the last user message (0 when there is none). */
  currentStart: number;
  /** Older turns as `[start, end)` ranges, oldest first; each starts at a user message (the first may not). */
  older: Array<{ start: number; end: number }>;
}

/**
 * Splits messages into turns. A turn runs from a user message to the next one, so an assistant message
 * with `tool_calls` always sits in the same turn as its `tool` messages: dropping whole turns never
 * separates them.
 */
export function splitTurns(messages: readonly ChatMessage[]): ConversationTurns {
  let currentStart = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      currentStart = i;
      break;
    }
  }
  const older: Array<{ start: number; end: number }> = [];
  let start = 0;
  for (let i = 1; i <= currentStart; i++) {
    if (i === currentStart || messages[i]?.role === 'user') {
      if (i > start) older.push({ start, end: i });
      start = i;
    }
  }
  return { currentStart, older };
}

/**
 * Describes the first broken pairing (`messages[4] (tool): ...`), or `undefined` when every function call
 * of an assistant message is answered by a `tool` message right after it and every tool message answers one.
 */
export function findUnpairedToolCall(messages: readonly ChatMessage[]): string | undefined {
  let open = new Set<string>();
  let openAt = -1;
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      if (!open.delete(message.tool_call_id)) {
        return `messages[${index}] (tool): ${JSON.stringify(message.tool_call_id)} answers no tool call of the assistant message before it`;
      }
      continue;
    }
    if (open.size > 0)
      return `messages[${openAt}] (assistant): tool call ${[...open][0]} has no tool message`;
    open = new Set(
      message.role === 'assistant'
        ? (message.tool_calls ?? []).filter((call) => call.type === 'function').map((call) => call.id)
        : [],
    );
    openAt = index;
  }
  return undefined;
}
