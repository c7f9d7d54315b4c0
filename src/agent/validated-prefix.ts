import type { ChatMessage } from '../api/types/chat.js';

/**
 * How many leading messages of `next` the previous request `previous` sent unchanged (the same objects;
 * the instructions' system message is rebuilt each turn, so an equal one counts too). The chat resource
 * then validates only the messages after them.
 */
export function validatedPrefixLength(
  previous: readonly ChatMessage[] | undefined,
  next: readonly ChatMessage[],
): number {
  if (!previous) return 0;
  const limit = Math.min(previous.length, next.length);
  let length = 0;
  while (length < limit && sameMessage(previous[length], next[length], length)) length += 1;
  return length;
}

function sameMessage(a: ChatMessage | undefined, b: ChatMessage | undefined, index: number): boolean {
  if (a === b) return true;
  return (
    index === 0 &&
    a?.role === 'system' &&
    b?.role === 'system' &&
    typeof a.content === 'string' &&
    a.content === b.content
  );
}
