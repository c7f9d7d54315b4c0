import { randomBytes } from 'node:crypto';
import type { ChatCompletionCreateParams, Usage } from '../../api/types/chat.js';
import { checkContextLength } from '../context-length.js';
import { errorBody, errorTypeForStatus, invalidParams } from '../errors.js';
import { messageText, runDefaultModel } from '../model/default-model.js';
import { DEFAULT_REASONING_MODELS, finishAnswer } from '../model/finish-answer.js';
import type { ModelAnswer } from '../model/model-answer.js';
import { renderCompletion } from '../model/render-completion.js';
import type { RenderContext } from '../model/render-context.js';
import { renderStream } from '../model/render-stream.js';
import { answerFromScript } from '../model/scripted-answer.js';
import { AUDIO_MODELS, MODEL_IDS, NON_CHAT_MODELS } from '../models-catalog.js';
import { type PromptMeasure, promptCacheOf } from '../prompt-cache.js';
import { json, type Reply, sse } from '../reply.js';
import type { RouteContext } from '../route-context.js';
import { storeSearcher } from '../store-search.js';
import { objectBody, validateChatBody } from '../validate.js';
import { checkWorkBounds } from '../work-bounds.js';
import { faultReply } from '../write-reply.js';

const KNOWN = new Set<string>(MODEL_IDS);

/** `POST /v1/chat/completions` and `POST /svc_plan/v1/chat/completions`. */
export function chatCompletions(ctx: RouteContext): Reply {
  const body = objectBody(ctx.body) as unknown as ChatCompletionCreateParams;
  validateChatBody(body, ctx.channel);
  checkWorkBounds(body);
  checkServiceRules(body, ctx);
  const prompt = promptCacheOf(ctx.state).measure(body);
  checkContextLength(body, prompt.promptTokens, ctx.model.contextWindows);
  const scripted = ctx.script.shift();
  const render = renderContext(body, ctx, prompt.promptTokens);
  if (scripted && 'chunks' in scripted) {
    return sse(scripted.chunks.map((chunk) => (typeof chunk === 'string' ? chunk : JSON.stringify(chunk))));
  }
  if (scripted && 'error' in scripted) {
    const { status, body: errorJson, headers } = scripted.error;
    return json(errorJson ?? errorBody('Scripted error', errorTypeForStatus(status)), status, headers ?? {});
  }
  if (scripted && 'fault' in scripted && scripted.fault.status !== undefined) {
    return faultReply({ ...scripted.fault, status: scripted.fault.status });
  }
  if (scripted && 'completion' in scripted && !body.stream) {
    const base = renderCompletion(answerFromScript({ content: '' }), render);
    const { message, ...rest } = scripted.completion as Record<string, unknown>;
    const merged = { ...base, ...rest } as Record<string, unknown>;
    if (message !== undefined && rest.choices === undefined) {
      merged.choices = [
        {
          index: 0,
          message: { role: 'assistant', content: '', ...(message as object) },
          finish_reason: 'stop',
        },
      ];
    }
    return json(merged);
  }
  let answer: ModelAnswer;
  if (scripted && 'message' in scripted) {
    answer = answerFromScript(scripted.message, scripted.finish_reason, scripted.usage);
  } else if (scripted && 'completion' in scripted) {
    const c = scripted.completion as {
      message?: never;
      choices?: Array<{ message?: never; finish_reason?: string }>;
    };
    const first = c.choices?.[0];
    answer = answerFromScript(c.message ?? first?.message ?? {}, first?.finish_reason);
  } else {
    const userText = messageText([...body.messages].reverse().find((m) => m.role === 'user'));
    answer = runDefaultModel(body, { searchStore: storeSearcher(ctx.state) });
    answer = finishAnswer(answer, body, userText, ctx.model.reasoningModels ?? DEFAULT_REASONING_MODELS);
  }
  const reply = body.stream
    ? sse(renderStream(answer, render).map((chunk) => JSON.stringify(withCachedTokens(chunk, prompt))))
    : json(withCachedTokens(renderCompletion(answer, render), prompt));
  if (scripted && 'fault' in scripted) reply.fault = scripted.fault;
  return reply;
}

/** Reports the cached prompt tokens on a rendered usage (not on the zero usage of a stream's first chunk). */
function withCachedTokens<T extends { usage?: Usage | null }>(reply: T, prompt: PromptMeasure): T {
  const usage = reply.usage;
  if (usage && prompt.cachedTokens > 0 && usage.prompt_tokens > 0 && usage.cached_tokens === undefined) {
    usage.cached_tokens = Math.min(prompt.cachedTokens, usage.prompt_tokens);
  }
  return reply;
}

function renderContext(
  body: ChatCompletionCreateParams,
  ctx: RouteContext,
  promptTokens: number,
): RenderContext {
  const wantsAudio = AUDIO_MODELS.has(body.model) && (body.modalities ?? []).includes('audio') && body.audio;
  const render: RenderContext = {
    id: `chatcmpl-${randomBytes(12).toString('hex')}`,
    model: body.model,
    created: Math.floor(Date.now() / 1000),
    n: body.n ?? 1,
    promptTokens,
    reasoningField: body.reasoning_format === 'alt-style' ? 'reasoning_content' : 'reasoning',
    toolFinishReason: {
      stream: ctx.model.toolCallFinishReason?.stream ?? 'tool_calls',
      nonStream: ctx.model.toolCallFinishReason?.nonStream ?? 'stop',
    },
    wordsPerChunk: ctx.model.wordsPerChunk ?? 3,
    legacyToolDeltas: body.model === 'svc-1-8k',
  };
  if (wantsAudio && body.audio) render.audio = { format: body.audio.format, voice: body.audio.voice };
  return render;
}

/** Rules that need the emulator's data or model catalogue, beyond the shared schema. */
function checkServiceRules(body: ChatCompletionCreateParams, ctx: RouteContext): void {
  if (!KNOWN.has(body.model) || NON_CHAT_MODELS.has(body.model)) {
    throw invalidParams(`model: '${body.model}' is not a chat model of this service`);
  }
  // The shared schema (validateChatBody) already requires `audio` with audio output, refuses wav when
  // streaming and holds the svc-audio-2 models to the preset voices; a cloned voice must exist here.
  const voice = body.audio?.voice;
  if (
    body.model === 'svc-1o-audio' &&
    (body.modalities ?? []).includes('audio') &&
    voice !== undefined &&
    !ctx.state.voices.has(voice)
  ) {
    throw invalidParams(`audio.voice: '${voice}' is not a voice of GET /v1/audio/voices`);
  }
  (body.tools ?? []).forEach((tool, i) => {
    if (tool.type !== 'retrieval') return;
    const storeId = tool.function.options.vector_store_id;
    if (!ctx.state.stores.has(storeId)) {
      throw invalidParams(`tools[${i}].function.options.vector_store_id: no vector store '${storeId}'`);
    }
  });
}
