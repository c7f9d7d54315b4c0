import type { ChatCompletion, ChatCompletionMessage, Usage } from '../../api/types/chat.js';
import { pcmToWav, synthesizePcm } from '../media/wav.js';
import { countTextTokens } from '../tokenize.js';
import type { ModelAnswer } from './model-answer.js';
import type { RenderContext } from './render-context.js';

/** Usage of an answer: prompt tokens of the request, completion tokens of everything generated. */
export function answerUsage(answer: ModelAnswer, ctx: RenderContext): Usage {
  let completion = countTextTokens(answer.content) + countTextTokens(answer.reasoning ?? '');
  for (const call of answer.toolCalls ?? [])
    completion += countTextTokens(call.name) + countTextTokens(call.arguments);
  const usage: Usage = {
    prompt_tokens: ctx.promptTokens,
    completion_tokens: completion,
    total_tokens: ctx.promptTokens + completion,
  };
  const merged = { ...usage, ...answer.usage };
  if (answer.usage && answer.usage.total_tokens === undefined) {
    merged.total_tokens = merged.prompt_tokens + merged.completion_tokens;
  }
  return merged;
}

/** Renders an answer as a non-streamed chat completion. */
export function renderCompletion(answer: ModelAnswer, ctx: RenderContext): ChatCompletion {
  const message: ChatCompletionMessage = { role: 'assistant', content: answer.content };
  if (answer.reasoning) message[ctx.reasoningField] = answer.reasoning;
  const calls = [
    ...(answer.hostedCalls ?? []),
    ...(answer.toolCalls ?? []).map((call, index) => ({
      index,
      id: call.id,
      type: 'function' as const,
      function: { name: call.name, arguments: call.arguments },
    })),
  ];
  if (calls.length > 0) message.tool_calls = calls;
  const usage = answerUsage(answer, ctx);
  let finishReason: string | null =
    answer.finishReason !== undefined
      ? answer.finishReason
      : answer.toolCalls?.length
        ? ctx.toolFinishReason.nonStream
        : 'stop';
  if (ctx.audio) {
    const pcm = synthesizePcm(answer.content);
    const data = ctx.audio.format === 'wav' ? pcmToWav(pcm) : pcm;
    message.audio = { data: data.toString('base64'), transcript: answer.content };
    message.content = '';
    // Audio models answer with a null finish reason and null usage details, as observed.
    if (answer.finishReason === undefined) finishReason = null;
    usage.completion_tokens_details = null;
    usage.prompt_tokens_details = null;
  }
  return {
    id: ctx.id,
    object: 'chat.completion',
    created: ctx.created,
    model: ctx.model,
    choices: Array.from({ length: ctx.n }, (_, index) => ({
      index,
      message: structuredClone(message),
      finish_reason: finishReason,
      ...(ctx.audio ? { logprobs: null } : {}),
    })),
    usage,
  };
}
