import type { ChatMessage } from '../../api/types/chat.js';

/**
 * The emulator's "today" when the request does not say: a fixed date, so that the same request gets the
 * same answer on any day ("tomorrow" is 2026-01-02 unless the conversation states the date).
 */
export const REFERENCE_TODAY = '2026-01-01';

/**
 * The date "today" means for a request: the one its system or user messages state ("Today is 2026-11-25",
 * "current date: 2026-11-25"), else {@link REFERENCE_TODAY}. Never the clock: answers must not change
 * from one second to the next.
 */
export function requestToday(messages: readonly ChatMessage[]): string {
  for (const message of messages) {
    if (message.role !== 'system' && message.role !== 'user') continue;
    const text =
      typeof message.content === 'string'
        ? message.content
        : message.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
    const stated =
      /\b(?:today(?:'s date)? is|current date:?|date today:?|today:)\s*(\d{4}-\d{2}-\d{2})\b/i.exec(text);
    if (stated?.[1]) return stated[1];
  }
  return REFERENCE_TODAY;
}
