import { createHash } from 'node:crypto';
import type {
  ChatCompletionCreateParams,
  ChatMessage,
  FunctionToolDefinition,
  RetrievalToolDefinition,
} from '../../api/types/chat.js';
import type { Passage } from '../search.js';
import { matchTools } from './match-tools.js';
import type { ModelAnswer } from './model-answer.js';
import { HintPicker, valueFromSchema } from './schema-value.js';
import { messageHints } from './words.js';

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
  const format = body.response_format;

  if (last?.role === 'tool') return answerFromToolResults(messages, format);

  const functions = tools.filter((t): t is FunctionToolDefinition => t.type === 'function');
  if (last?.role === 'user' && functions.length > 0) {
    const matched = matchTools(functions, userText);
    if (matched.length > 0) {
      const hints = messageHints(userText);
      const prefix = `call_${createHash('sha256').update(JSON.stringify(messages)).digest('hex').slice(0, 16)}`;
      return {
        content: '',
        toolCalls: matched.map((tool, i) => ({
          id: `${prefix}_${i}`,
          name: tool.function.name,
          arguments: JSON.stringify(
            valueFromSchema(tool.function.parameters ?? { type: 'object' }, new HintPicker(hints), {
              onlyRequiredOrFound: true,
            }),
          ),
        })),
      };
    }
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

  const reply = userText
    ? `You said: "${truncate(userText, 500)}". This is the svc emulator's deterministic reply.`
    : 'I received your message. This is the svc emulator\u2019s deterministic reply.';
  return { content: formatted(reply, userText, format) };
}

function formatted(
  reply: string,
  source: string,
  format: ChatCompletionCreateParams['response_format'],
): string {
  if (format?.type === 'json_object') return JSON.stringify({ answer: reply });
  if (format?.type === 'json_schema') {
    return JSON.stringify(valueFromSchema(format.json_schema.schema, new HintPicker(messageHints(source))));
  }
  return reply;
}

function answerFromToolResults(
  messages: ChatMessage[],
  format: ChatCompletionCreateParams['response_format'],
): ModelAnswer {
  const results: Array<{ name: string; content: string }> = [];
  let i = messages.length - 1;
  for (; i >= 0 && messages[i]?.role === 'tool'; i--) {
    const message = messages[i] as Extract<ChatMessage, { role: 'tool' }>;
    results.unshift({ name: toolNameOf(messages, i, message.tool_call_id), content: message.content });
  }
  const parts = results.map((r) => `${r.name} returned ${summarize(r.content)}`);
  const reply = `Here is what I found: ${parts.join('; ')}.`;
  return { content: formatted(reply, results.map((r) => r.content).join(' '), format) };
}

function toolNameOf(messages: ChatMessage[], before: number, callId: string): string {
  for (let i = before - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'assistant') continue;
    const call = m.tool_calls?.find((c) => c.id === callId);
    if (call) return call.function.name;
  }
  return 'the tool';
}

function summarize(content: string): string {
  try {
    const value: unknown = JSON.parse(content);
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return truncate(
        Object.entries(value)
          .map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
          .join(', '),
        300,
      );
    }
  } catch {
    // Not JSON: quote the text as is.
  }
  return truncate(content, 300);
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

/** Cuts a text to `max` characters with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}\u2026` : text;
}
