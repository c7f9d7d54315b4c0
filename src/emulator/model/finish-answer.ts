import { decode, encode } from 'gpt-tokenizer';
import type { ChatCompletionCreateParams } from '../../api/types/chat.js';
import { truncate } from './default-model.js';
import type { ModelAnswer } from './model-answer.js';

/** Models that always reason, as the service's reasoning models do. */
export const DEFAULT_REASONING_MODELS = [
  'svc-3.5-flash',
  'svc-3.5-flash-2603',
  'svc-3.7-flash',
  'svc-audio-r1.1',
];

/**
 * Applies what the request asks of any generated answer: reasoning text for reasoning models (or when
 * `reasoning_effort` is set), `stop` sequences and the `max_tokens` budget.
 */
export function finishAnswer(
  answer: ModelAnswer,
  body: ChatCompletionCreateParams,
  userText: string,
  reasoningModels: readonly string[],
): ModelAnswer {
  const out = { ...answer };
  if (reasoningModels.includes(body.model) || body.reasoning_effort !== undefined) {
    const plan = out.toolCalls?.length
      ? `call ${namesOnce(out.toolCalls.map((c) => c.name))} with arguments taken from the message`
      : body.messages.at(-1)?.role === 'tool'
        ? 'summarise the tool results for the user'
        : 'answer directly';
    const effort = body.reasoning_effort ? ` Reasoning effort: ${body.reasoning_effort}.` : '';
    out.reasoning = `The user wrote "${truncate(userText, 160)}". I should ${plan}.${effort}`;
  }
  if (out.toolCalls?.length) return out;
  const stops = body.stop === undefined ? [] : Array.isArray(body.stop) ? body.stop : [body.stop];
  for (const stop of stops) {
    const at = stop ? out.content.indexOf(stop) : -1;
    if (at >= 0) out.content = out.content.slice(0, at);
  }
  if (body.max_tokens !== undefined) {
    const tokens = encode(out.content);
    if (tokens.length > body.max_tokens) {
      out.content = decode(tokens.slice(0, body.max_tokens));
      out.finishReason = 'length';
    }
  }
  return out;
}

/** "get_weather twice and calculate": each tool once, with how many calls it gets. */
function namesOnce(names: string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  const times = (n: number) => (n === 1 ? '' : n === 2 ? ' twice' : ` ${n} times`);
  return [...counts].map(([name, n]) => `${name}${times(n)}`).join(' and ');
}
