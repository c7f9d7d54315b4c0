import { json, type Reply } from '../reply.js';
import type { RouteContext } from '../route-context.js';
import { countChatPromptTokens } from '../tokenize.js';
import { objectBody, Rules } from '../validate.js';

const ROLES = new Set(['system', 'user', 'assistant']);
const PARTS = new Set(['text', 'image_url']);

/** `POST /v1/token/count`: input tokens of chat-format messages (system, user, assistant; text and image parts). */
export function countTokens(ctx: RouteContext): Reply {
  const body = objectBody(ctx.body);
  const rules = new Rules()
    .check(typeof body.model !== 'string' || body.model === '', 'model', 'required, a non-empty string')
    .check(
      !Array.isArray(body.messages) || body.messages.length === 0,
      'messages',
      'required, a non-empty array',
    );
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  messages.forEach((message, i) => {
    const m = (message ?? {}) as Record<string, unknown>;
    rules.check(!ROLES.has(String(m.role)), `messages[${i}].role`, 'must be "system", "user" or "assistant"');
    if (Array.isArray(m.content)) {
      m.content.forEach((part, j) => {
        const type = (part as { type?: unknown } | null)?.type;
        rules.check(
          !PARTS.has(String(type)),
          `messages[${i}].content[${j}].type`,
          'must be "text" or "image_url"',
        );
      });
    } else {
      rules.check(
        typeof m.content !== 'string',
        `messages[${i}].content`,
        'must be a string or an array of parts',
      );
    }
  });
  rules.throwIfAny();
  return json({ data: { total_tokens: countChatPromptTokens(messages) } });
}
