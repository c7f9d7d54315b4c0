import { createHash } from 'node:crypto';
import type {
  ChatCompletionCreateParams,
  ChatMessage,
  FunctionToolDefinition,
  RetrievalToolDefinition,
} from '../../api/types/chat.js';
import { invalidParams } from '../errors.js';
import { readImageSize } from '../media/image-size.js';
import type { Passage } from '../search.js';
import { truncate } from '../utils.js';
import { analyzeText } from './analyze-text.js';
import { answerFromPassages as answerFromSearchResults } from './answer-from-passages.js';
import { describeToolResults, type ToolExchange } from './describe-tool-results.js';
import { SchemaFiller } from './fill-schema.js';
import type { ModelAnswer } from './model-answer.js';
import { planKnowledgeBaseSearch } from './plan-knowledge-base-search.js';
import { planToolCalls } from './plan-tool-calls.js';
import { requestToday } from './request-today.js';
import { DEMO_ABILITIES, smallTalkReply } from './small-talk.js';

export { truncate } from '../utils.js';

/** What the default model may look up while answering. */
export interface ModelEnvironment {
  /** Best passages of a vector store for a query. */
  searchStore(storeId: string, query: string): Passage[];
}

/** Text of a message's content (text parts joined). */
export function messageText(message: ChatMessage | undefined): string {
  if (!message) return '';
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .filter(Boolean)
    .join(' ');
}

/** The deterministic model: its answer depends only on the request (and the stored files it searches). */
export function runDefaultModel(body: ChatCompletionCreateParams, env: ModelEnvironment): ModelAnswer {
  const messages = body.messages;
  const last = messages.at(-1);
  const tools = body.tools ?? [];
  const userText = messageText([...messages].reverse().find((m) => m.role === 'user'));

  if (last?.role === 'tool') return answerFromToolResults(body);

  const functions = tools.filter((t): t is FunctionToolDefinition => t.type === 'function');
  if (last?.role === 'user' && functions.length > 0) {
    const plan = planToolCalls(functions, userText, requestToday(messages));
    if (plan.calls.length > 0) {
      const prefix = `call_${createHash('sha256').update(JSON.stringify(messages)).digest('hex').slice(0, 16)}`;
      return {
        content: '',
        toolCalls: plan.calls.map((call, i) => ({
          id: `${prefix}_${i}`,
          name: call.tool.function.name,
          arguments: JSON.stringify(call.arguments),
        })),
      };
    }
    const search = planKnowledgeBaseSearch(functions, userText, JSON.stringify(messages));
    if (search && !body.response_format) return search;
    if (plan.question && !body.response_format) return { content: plan.question };
  }

  const retrieval = tools.find((t): t is RetrievalToolDefinition => t.type === 'retrieval');
  if (retrieval && userText) {
    return {
      content: answerFromPassages(env.searchStore(retrieval.function.options.vector_store_id, userText)),
    };
  }

  if (tools.some((t) => t.type === 'web_search') && userText) {
    const id = `call_ws_${createHash('sha256').update(userText).digest('hex').slice(0, 16)}`;
    return {
      content: `I searched the web for "${userText}" but found no results: the svc emulator has no network access.`,
      hostedCalls: [
        {
          id,
          type: 'web_search',
          function: { name: 'svc_websearch', arguments: JSON.stringify({ query: userText }), results: [] },
        },
      ],
    };
  }

  // Small talk gets a brief answer; anything else it cannot do, one honest answer saying what it can do.
  const reply = smallTalkReply(userText) ?? describeImages(messages.at(-1)) ?? DEMO_ABILITIES;
  return { content: formatted(reply, body, [], '') };
}

/** What the demo can tell of the images in a message: their format and size, and that it sees no more. */
function describeImages(message: ChatMessage | undefined): string | undefined {
  if (message?.role !== 'user' || !Array.isArray(message.content)) return undefined;
  const images = message.content.flatMap((part) => (part.type === 'image_url' ? [part.image_url.url] : []));
  if (images.length === 0) return undefined;
  const described = images.map((url) => {
    const data = /^data:image\/(\w+);base64,(.*)$/s.exec(url);
    if (!data) return `an image at ${truncate(url, 80)}`;
    const size = readImageSize(Buffer.from(data[2] ?? '', 'base64'));
    return `a ${size ? `${size.width}x${size.height} ` : ''}${data[1]?.toUpperCase()} image`;
  });
  return `I received ${described.join(' and ')}. The svc emulator's demo model reads an image's format and size, not what it shows.`;
}

/** The reply in the requested format: JSON built from the request (and tool results) when a schema is asked. */
function formatted(
  reply: string,
  body: ChatCompletionCreateParams,
  records: Array<Record<string, unknown>>,
  context: string,
): string {
  const format = body.response_format;
  // JSON mode with the schema in the instructions (how an agent asks models without json_schema): fill it.
  const instructed = format?.type === 'json_object' ? schemaInInstructions(body.messages) : undefined;
  if (format?.type === 'json_object' && !instructed) return JSON.stringify({ answer: reply });
  const schema = instructed ?? (format?.type === 'json_schema' ? format.json_schema.schema : undefined);
  if (schema) {
    const userText = messageText([...body.messages].reverse().find((m) => m.role === 'user'));
    const filler = new SchemaFiller({
      facts: analyzeText(userText, requestToday(body.messages)),
      records,
      context,
    });
    const value = filler.fill(schema as Record<string, unknown>);
    if (filler.valid) return JSON.stringify(value);
    // JSON mode asks for what the request lacks; a json_schema answer is always JSON valid against the
    // schema (the caller parses it), so the value is made without the request's words instead.
    if (format?.type !== 'json_schema')
      return `I cannot answer in the requested format without it: which value should ${filler.unmet[0]} have?`;
    return JSON.stringify(valueWithoutRequest(schema as Record<string, unknown>));
  }
  return reply;
}

/** A value made from the schema alone (defaults, samples of patterns, bounds); a 400 when none exists. */
function valueWithoutRequest(schema: Record<string, unknown>): unknown {
  const filler = new SchemaFiller({ facts: analyzeText('') });
  const value = filler.fill(schema);
  if (filler.valid) return value;
  throw invalidParams(
    `response_format.json_schema.schema: no value satisfies it at ${filler.unmet[0]} (unsatisfiable, or beyond what the emulator can generate)`,
  );
}

function answerFromToolResults(body: ChatCompletionCreateParams): ModelAnswer {
  const messages = body.messages;
  const exchanges: ToolExchange[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === 'tool'; i--) {
    const message = messages[i] as Extract<ChatMessage, { role: 'tool' }>;
    const call = callOf(messages, i, message.tool_call_id);
    exchanges.unshift({
      name: call?.function.name ?? 'the tool',
      arguments: parseObject(call?.function.arguments),
      content: typeof message.content === 'string' ? message.content : messageText(message),
    });
  }
  // Structured output reads every tool result of the run, not only the last batch.
  const records: Array<Record<string, unknown>> = [];
  const contents: string[] = [];
  for (const m of messages) {
    if (m.role !== 'tool') continue;
    const content = typeof m.content === 'string' ? m.content : messageText(m);
    contents.push(content);
    const parsed = parseObject(content);
    if (Object.keys(parsed).length > 0) records.push(parsed);
  }
  const descriptions = (body.tools ?? [])
    .map((t) => (t.type === 'function' ? (t.function.description ?? '') : ''))
    .join(' ');
  // Knowledge-base passages are answered from, with their source named, not described as tool output.
  const question = messageText([...messages].reverse().find((m) => m.role === 'user'));
  const reply = answerFromSearchResults(exchanges, question) ?? describeToolResults(exchanges);
  return { content: formatted(reply, body, records, `${descriptions} ${contents.join(' ')}`) };
}

function callOf(messages: ChatMessage[], before: number, callId: string) {
  for (let i = before - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'assistant') continue;
    const call = m.tool_calls?.find((c) => c.id === callId);
    if (call && 'function' in call) return call as { function: { name: string; arguments: string } };
  }
  return undefined;
}

function parseObject(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function answerFromPassages(passages: Passage[]): string {
  const best = passages[0];
  if (!best) return 'I could not find anything about that in the knowledge base.';
  const others = [...new Set(passages.slice(1).map((p) => p.fileName))].filter(
    (name) => name !== best.fileName,
  );
  const also = others.length > 0 ? ` See also ${others.join(', ')}.` : '';
  return `According to ${best.fileName}: ${truncate(best.text, 600)}${also}`;
}

/** The JSON Schema a system message gives for JSON mode ("... matches this JSON Schema:\n{...}"), if any. */
function schemaInInstructions(messages: readonly ChatMessage[]): Record<string, unknown> | undefined {
  for (const message of messages) {
    if (message.role !== 'system' || typeof message.content !== 'string') continue;
    const at = message.content.search(/JSON Schema:\s*\{/i);
    if (at < 0) continue;
    const text = message.content.slice(message.content.indexOf('{', at));
    // The schema is the longest prefix that parses: instructions may go on after it.
    for (let end = text.lastIndexOf('}'); end > 0; end = text.lastIndexOf('}', end - 1)) {
      try {
        const parsed = JSON.parse(text.slice(0, end + 1)) as unknown;
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
          return parsed as Record<string, unknown>;
      } catch {
        // Not the end of the schema yet: try an earlier closing brace.
      }
    }
  }
  return undefined;
}
