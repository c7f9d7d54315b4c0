import { randomBytes } from 'node:crypto';
import type { ChatCompletionCreateParams, ChatMessage, ToolDefinition } from '../../api/types/chat.js';
import { invalidParams } from '../errors.js';
import { runDefaultModel } from '../model/default-model.js';
import { json, type Reply } from '../reply.js';
import type { RouteContext } from '../route-context.js';
import { storeSearcher } from '../store-search.js';
import { countChatPromptTokens, countMessagesFormatTokens, countTextTokens } from '../tokenize.js';
import { objectBody, Rules, validateBody } from '../validate.js';

const PLAN_MODEL = 'svc-router-v1';

/** Checks a Messages creation body (no shared schema exists for it: the spec does not document it). */
function checkMessagesBody(ctx: RouteContext): Record<string, unknown> {
  const body = objectBody(ctx.body);
  const rules = new Rules()
    .check(typeof body.model !== 'string' || body.model === '', 'model', 'required, a non-empty string')
    .check(
      !Array.isArray(body.messages) || body.messages.length === 0,
      'messages',
      'required, a non-empty array',
    )
    .check(
      !Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1,
      'max_tokens',
      'required, a positive integer',
    )
    .check(body.tools !== undefined && !Array.isArray(body.tools), 'tools', 'must be an array');
  const messages = Array.isArray(body.messages) ? (body.messages as Array<Record<string, unknown>>) : [];
  messages.forEach((m, i) => {
    rules.check(
      m?.role !== 'user' && m?.role !== 'assistant',
      `messages[${i}].role`,
      'must be "user" or "assistant"',
    );
    rules.check(
      typeof m?.content !== 'string' && !Array.isArray(m?.content),
      `messages[${i}].content`,
      'must be a string or an array of content blocks',
    );
  });
  rules.throwIfAny();
  if (ctx.channel === 'plan' && body.model !== PLAN_MODEL) {
    throw invalidParams(`model: the plan channel accepts only "${PLAN_MODEL}"`);
  }
  return body;
}

/** `POST /v1/messages/count_tokens` (and under `/svc_plan`): `{ input_tokens }`. */
export function countMessageTokens(ctx: RouteContext): Reply {
  const body = objectBody(ctx.body);
  validateBody.messagesCountTokens(body, ctx.channel);
  return json({
    input_tokens: countMessagesFormatTokens({
      system: body.system,
      messages: body.messages as unknown[],
      ...(Array.isArray(body.tools) ? { tools: body.tools as unknown[] } : {}),
    }),
  });
}

function blockText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: string; content?: unknown }) =>
      b.type === 'text' ? (b.text ?? '') : b.type === 'tool_result' ? blockText(b.content) : '',
    )
    .join(' ');
}

/** Maps a Messages request onto the chat format the default model reads. */
function toChatParams(body: Record<string, unknown>): ChatCompletionCreateParams {
  const messages: ChatMessage[] = [];
  if (body.system) messages.push({ role: 'system', content: blockText(body.system) });
  for (const m of body.messages as Array<{ role: string; content: unknown }>) {
    const blocks = Array.isArray(m.content) ? (m.content as Array<Record<string, unknown>>) : [];
    const results = blocks.filter((b) => b.type === 'tool_result');
    if (m.role === 'user' && results.length > 0) {
      for (const r of results)
        messages.push({ role: 'tool', tool_call_id: String(r.tool_use_id), content: blockText(r.content) });
      continue;
    }
    const uses = blocks.filter((b) => b.type === 'tool_use');
    if (m.role === 'assistant' && uses.length > 0) {
      messages.push({
        role: 'assistant',
        content: blockText(m.content),
        tool_calls: uses.map((u) => ({
          id: String(u.id),
          type: 'function',
          function: { name: String(u.name), arguments: JSON.stringify(u.input ?? {}) },
        })),
      });
      continue;
    }
    messages.push({
      role: m.role === 'assistant' ? 'assistant' : 'user',
      content: blockText(m.content),
    } as ChatMessage);
  }
  const tools: ToolDefinition[] = ((body.tools as Array<Record<string, unknown>> | undefined) ?? []).map(
    (t) => ({
      type: 'function',
      function: {
        name: String(t.name),
        description: String(t.description ?? ''),
        parameters: (t.input_schema ?? { type: 'object' }) as never,
      },
    }),
  );
  return { model: String(body.model), messages, tools };
}

/** `POST /v1/messages`: a Messages-format answer from the default model (streamed as Messages events too). */
export function createMessage(ctx: RouteContext): Reply {
  const body = checkMessagesBody(ctx);
  const answer = runDefaultModel(toChatParams(body), { searchStore: storeSearcher(ctx.state) });
  const content: Array<Record<string, unknown>> = [];
  if (answer.content) content.push({ type: 'text', text: answer.content });
  for (const call of answer.toolCalls ?? []) {
    content.push({
      type: 'tool_use',
      id: call.id.replace(/^call_/, 'toolu_'),
      name: call.name,
      input: JSON.parse(call.arguments),
    });
  }
  const message = {
    id: `msg_${randomBytes(12).toString('hex')}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: answer.toolCalls?.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: countMessagesFormatTokens({ system: body.system, messages: body.messages as unknown[] }),
      output_tokens: countTextTokens(
        answer.content + (answer.toolCalls ?? []).map((c) => c.arguments).join(''),
      ),
    },
  };
  if (body.stream !== true) return json(message);
  const events = messageEvents(message).map((e) => ({
    event: (e as { type: string }).type,
    data: JSON.stringify(e),
  }));
  return { kind: 'sse', events, done: false };
}

function messageEvents(message: {
  content: Array<Record<string, unknown>>;
  stop_reason: string;
  usage: { output_tokens: number };
}): unknown[] {
  const events: unknown[] = [
    { type: 'message_start', message: { ...message, content: [], stop_reason: null } },
  ];
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  events.push({ type: 'message_stop' });
  return events;
}

/** `POST /v1/token/count`: input tokens of chat-format messages (system, user, assistant; text and image parts). */
export function countTokens(ctx: RouteContext): Reply {
  const body = objectBody(ctx.body);
  validateBody.tokenCount(body);
  return json({ data: { total_tokens: countChatPromptTokens(body.messages as unknown[]) } });
}
