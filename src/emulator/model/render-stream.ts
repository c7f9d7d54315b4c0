import type { ChatCompletionChunk, ChatCompletionDelta, Usage } from '../../api/types/chat.js';
import { synthesizePcm } from '../media/wav.js';
import { countTextTokens } from '../tokenize.js';
import type { ModelAnswer } from './model-answer.js';
import { answerUsage } from './render-completion.js';
import type { RenderContext } from './render-context.js';

/** Splits a text into pieces of a few words, keeping every character (spaces included). */
export function splitWords(text: string, wordsPerPiece: number): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerPiece)
    pieces.push(words.slice(i, i + wordsPerPiece).join(''));
  return pieces;
}

function splitArguments(args: string): string[] {
  if (args.length < 4) return [args];
  const third = Math.ceil(args.length / 3);
  return [args.slice(0, third), args.slice(third, 2 * third), args.slice(2 * third)];
}

/**
 * Renders an answer as stream chunks in the observed shape: a first chunk with `role: "assistant"`,
 * `content: ""`, `created: 0` and zero usage; then `role: ""` chunks with `finish_reason: ""` and cumulative
 * usage; the last content chunk carries the finish reason.
 */
export function renderStream(answer: ModelAnswer, ctx: RenderContext): ChatCompletionChunk[] {
  const total = answerUsage(answer, ctx);
  const deltas: Array<{ delta: ChatCompletionDelta; tokens: number }> = [];
  for (const piece of splitWords(answer.reasoning ?? '', ctx.wordsPerChunk)) {
    deltas.push({ delta: { role: '', [ctx.reasoningField]: piece }, tokens: countTextTokens(piece) });
  }
  for (const piece of splitWords(answer.content, ctx.wordsPerChunk)) {
    const delta: ChatCompletionDelta = ctx.audio
      ? { role: '', audio: { data: synthesizePcm(piece).toString('base64'), transcript: piece } }
      : { role: '', content: piece };
    deltas.push({ delta, tokens: countTextTokens(piece) });
  }
  for (const [index, call] of (answer.toolCalls ?? []).entries()) {
    const head = ctx.legacyToolDeltas
      ? { id: '', type: '', function: { name: call.name, arguments: '' } }
      : { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
    deltas.push({ delta: { role: '', tool_calls: [head] }, tokens: countTextTokens(call.name) });
    for (const fragment of splitArguments(call.arguments)) {
      const piece = ctx.legacyToolDeltas
        ? { id: '', type: '', function: { name: '', arguments: fragment } }
        : { index, function: { arguments: fragment } };
      deltas.push({ delta: { role: '', tool_calls: [piece] }, tokens: countTextTokens(fragment) });
    }
  }
  if (deltas.length === 0) deltas.push({ delta: { role: '', content: '' }, tokens: 0 });

  const finish =
    answer.finishReason !== undefined
      ? answer.finishReason
      : answer.toolCalls?.length
        ? ctx.toolFinishReason.stream
        : 'stop';
  const zero: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const firstDelta: ChatCompletionDelta = { role: 'assistant', content: '' };
  if (answer.hostedCalls?.length) firstDelta.tool_calls = answer.hostedCalls;
  const chunks = [chunk(ctx, 0, firstDelta, '', zero)];
  let completion = 0;
  deltas.forEach(({ delta, tokens }, i) => {
    const isLast = i === deltas.length - 1;
    completion = isLast ? total.completion_tokens : Math.min(completion + tokens, total.completion_tokens);
    const usage = isLast
      ? total
      : {
          prompt_tokens: total.prompt_tokens,
          completion_tokens: completion,
          total_tokens: total.prompt_tokens + completion,
        };
    chunks.push(chunk(ctx, ctx.created, delta, isLast ? finish : '', usage));
  });
  return chunks;
}

function chunk(
  ctx: RenderContext,
  created: number,
  delta: ChatCompletionDelta,
  finishReason: string | null,
  usage: Usage,
): ChatCompletionChunk {
  return {
    id: ctx.id,
    object: 'chat.completion.chunk',
    created,
    model: ctx.model,
    choices: Array.from({ length: ctx.n }, (_, index) => ({ index, delta, finish_reason: finishReason })),
    usage,
  };
}
