import { countTokens, decode, encode } from 'gpt-tokenizer';
import type { ChatCompletionCreateParams } from '../../api/types/chat.js';
import { truncate } from './default-model.js';
import type { ModelAnswer } from './model-answer.js';
import { DEMO_ABILITIES } from './small-talk.js';

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
    // The reasoning says what was decided and from what, not one sentence for every answer.
    const plan = out.toolCalls?.length
      ? `call ${out.toolCalls.map((c) => `${c.name} with ${truncate(c.arguments, 120)}`).join(', then ')}`
      : body.messages.at(-1)?.role === 'tool'
        ? 'answer from the tool results, quoting their values'
        : out.content.startsWith(DEMO_ABILITIES.slice(0, 30))
          ? 'say plainly that the demo has no tool or knowledge for this, and what it can do'
          : 'answer directly';
    const effort = body.reasoning_effort ? ` Reasoning effort: ${body.reasoning_effort}.` : '';
    out.reasoning = `The user wrote "${truncate(userText, 160)}". I should ${plan}.${effort}`;
  }
  const stops = body.stop === undefined ? [] : Array.isArray(body.stop) ? body.stop : [body.stop];
  if (!out.toolCalls?.length) {
    for (const stop of stops) {
      const at = stop ? out.content.indexOf(stop) : -1;
      if (at >= 0) out.content = out.content.slice(0, at);
    }
  }
  if (body.max_tokens !== undefined) applyMaxTokens(out, body.max_tokens);
  return out;
}

/**
 * `max_tokens` bounds everything generated, in the order it is generated: reasoning, then tool calls
 * (name and arguments), then the answer. What does not fit is cut, and the finish reason is `length`.
 */
function applyMaxTokens(out: ModelAnswer, maxTokens: number): void {
  let budget = maxTokens;
  const cut = () => {
    out.finishReason = 'length';
  };
  if (out.reasoning) {
    const used = countTokens(out.reasoning);
    if (used >= budget) {
      out.reasoning = cutToTokens(out.reasoning, budget);
      out.content = '';
      delete out.toolCalls;
      cut();
      return;
    }
    budget -= used;
  }
  if (out.toolCalls?.length) {
    const kept: NonNullable<ModelAnswer['toolCalls']> = [];
    for (const call of out.toolCalls) {
      const cost = countTokens(call.name) + countTokens(call.arguments);
      if (cost <= budget) {
        kept.push(call);
        budget -= cost;
        continue;
      }
      const room = budget - countTokens(call.name);
      if (room > 0) kept.push({ ...call, arguments: cutToTokens(call.arguments, room) });
      cut();
      break;
    }
    out.toolCalls = kept;
    if (out.finishReason === 'length') {
      out.content = '';
      return;
    }
  }
  if (countTokens(out.content) > budget) {
    out.content = cutToTokens(out.content, budget);
    cut();
  }
}

/** The longest prefix of `text` that counts at most `max` tokens. */
function cutToTokens(text: string, max: number): string {
  if (max <= 0) return '';
  let out = decode(encode(text).slice(0, max));
  // Re-encoding a cut text can merge differently; trim until it fits.
  while (out && countTokens(out) > max) out = out.slice(0, -1);
  return out;
}
