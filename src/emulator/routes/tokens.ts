import { json, type Reply } from '../reply.js';
import type { RouteContext } from '../route-context.js';
import { countChatPromptTokens } from '../tokenize.js';
import { objectBody, validateBody } from '../validate.js';

/** `POST /v1/token/count`: input tokens of chat-format messages (system, user, assistant; text and image parts). */
export function countTokens(ctx: RouteContext): Reply {
  const body = objectBody(ctx.body);
  validateBody.tokenCount(body);
  return json({ data: { total_tokens: countChatPromptTokens(body.messages as unknown[]) } });
}
