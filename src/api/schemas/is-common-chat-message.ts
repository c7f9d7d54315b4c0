import { isJsonObject } from './field-rules.js';

type Raw = Record<string, unknown>;
const isOptionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';

/**
 * True for a message of a common shape that `chatMessageSchema` accepts: system, tool and assistant
 * messages and user messages with text content, checked by hand with exactly the schema's rules. It only
 * ever accepts; anything else (content parts, a broken rule) is left to the zod schema, so what is
 * refused, and how the error reads, stays the schema's. Why: zod copies every object it parses, and the
 * agent sends its new messages every turn; that garbage cost more than the checks
 * (bench/results/2026-11-22.md, row 16f8e32).
 */
export function isCommonChatMessage(message: unknown): boolean {
  if (!isJsonObject(message)) return false;
  switch (message.role) {
    case 'system':
      return typeof message.content === 'string';
    case 'user':
      // Content parts have many rules of their own: the schema checks those.
      return typeof message.content === 'string';
    case 'tool':
      return typeof message.content === 'string' && typeof message.tool_call_id === 'string';
    case 'assistant':
      return isCommonAssistantMessage(message);
    default:
      return false;
  }
}

function isCommonAssistantMessage(message: Raw): boolean {
  const { content, tool_calls: calls } = message;
  if (content !== undefined && content !== null && typeof content !== 'string') return false;
  if (!isOptionalString(message.reasoning) || !isOptionalString(message.reasoning_content)) return false;
  if (calls === undefined) return content != null;
  if (!Array.isArray(calls)) return false;
  for (const call of calls) if (!isCommonToolCall(call)) return false;
  // Content is required without tool calls.
  return content != null || calls.length > 0;
}

function isCommonToolCall(call: unknown): boolean {
  if (!isJsonObject(call) || typeof call.id !== 'string' || typeof call.type !== 'string') return false;
  const fn = call.function;
  if (!isJsonObject(fn) || !isOptionalString(fn.name) || !isOptionalString(fn.arguments)) return false;
  const index = call.index;
  if (index !== undefined && !(typeof index === 'number' && Number.isInteger(index) && index >= 0))
    return false;
  // A function call needs its name and arguments; a hosted one may come back without them.
  return call.type !== 'function' || (fn.name !== undefined && fn.arguments !== undefined);
}
