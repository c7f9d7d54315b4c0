import type { z } from 'zod';
import { listValues } from './human-error-map.js';
import {
  endToEndAudioModelIds,
  jsonSchemaModelIds,
  namedModelIds,
  planMaxTokens,
  planModelId,
  presetVoiceModelIds,
  presetVoices,
  reasoningEffortLevels,
  textOnlyModelIds,
} from './model-ids.js';
import { unsupportedContentType } from './validate-with-schema.js';

/** The raw request, read defensively: these rules also run when the structural check found issues. */
type RawParams = Record<string, unknown>;
type Ctx = z.core.$RefinementCtx<unknown>;

const jsonSchemaModels = listValues([...jsonSchemaModelIds]).replace(' or ', ' and ');

/** Rules that depend on the model or on several fields together (default and plan channel). */
export function checkChatModelRules(params: RawParams, ctx: Ctx): void {
  const { model, stream, audio, modalities, response_format, reasoning_effort, max_tokens } = params;
  if (isObject(audio) && audio.format === 'wav' && stream === true) {
    ctx.addIssue({
      code: 'custom',
      message: '"wav" is allowed only when stream is not true; use "pcm" for streaming',
      path: ['audio', 'format'],
    });
  }
  if (typeof model !== 'string' || !namedModelIds.has(model)) return;
  if (textOnlyModelIds.has(model) && Array.isArray(modalities) && modalities.includes('audio')) {
    ctx.addIssue({
      code: 'custom',
      message: `"audio" is not supported by ${model}, which answers text only`,
      path: ['modalities'],
    });
  }
  if (endToEndAudioModelIds.has(model)) checkAudioModelRules(model, modalities, audio, ctx);
  if (isObject(response_format) && response_format.type === 'json_schema' && !jsonSchemaModelIds.has(model)) {
    ctx.addIssue({
      code: 'custom',
      message: `"json_schema" is supported only by ${jsonSchemaModels}, not ${model}`,
      path: ['response_format', 'type'],
    });
  }
  const levels = reasoningEffortLevels.get(model);
  // Values outside low|medium|high are already reported by the field rule; say it once.
  const isKnownEffort =
    reasoning_effort === 'low' || reasoning_effort === 'medium' || reasoning_effort === 'high';
  if (levels !== undefined && isKnownEffort && !levels.includes(reasoning_effort)) {
    ctx.addIssue({
      code: 'custom',
      message: `must be ${listValues(levels)} for ${model}`,
      path: ['reasoning_effort'],
    });
  }
  if (model === planModelId && typeof max_tokens === 'number' && max_tokens > planMaxTokens) {
    ctx.addIssue({
      code: 'custom',
      message: `must be at most ${planMaxTokens} (384K) for ${model}`,
      path: ['max_tokens'],
    });
  }
}

/** End-to-end audio models: `modalities` required, `audio` with it when it holds "audio", preset voices. */
function checkAudioModelRules(model: string, modalities: unknown, audio: unknown, ctx: Ctx): void {
  if (modalities === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `required for the end-to-end model ${model}: ["text"], or ["text", "audio"] to hear the answer`,
      path: ['modalities'],
    });
    return;
  }
  if (!Array.isArray(modalities) || !modalities.includes('audio')) return;
  if (audio === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: 'required when modalities include "audio": { voice, format }',
      path: ['audio'],
    });
    return;
  }
  if (isObject(audio) && typeof audio.voice === 'string' && audio.voice && presetVoiceModelIds.has(model)) {
    if (!(presetVoices as readonly string[]).includes(audio.voice)) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a preset voice of ${model}: ${listValues([...presetVoices])}`,
        path: ['audio', 'voice'],
      });
    }
  }
}

/** The default channel does not serve the plan model. */
export function checkDefaultChannelRules(params: RawParams, ctx: Ctx): void {
  if (params.model === planModelId) {
    ctx.addIssue({
      code: 'custom',
      message: `${planModelId} is served only on the plan channel: client.plan.chat.completions.create(...), or new Agent({ client, model: '${planModelId}', channel: 'plan' })`,
      path: ['model'],
    });
  }
}

/** The plan channel: only the plan model, and for it no image input and no web_search tool. */
export function checkPlanChannelRules(params: RawParams, ctx: Ctx): void {
  const { model, messages, tools } = params;
  if (model !== planModelId) {
    if (typeof model === 'string') {
      ctx.addIssue({
        code: 'custom',
        message: `the plan channel accepts only "${planModelId}"`,
        path: ['model'],
      });
    }
    return;
  }
  if (Array.isArray(messages)) {
    messages.forEach((message, index) => {
      if (!isObject(message) || !Array.isArray(message.content)) return;
      message.content.forEach((part, partIndex) => {
        if (isObject(part) && part.type === 'image_url') {
          ctx.addIssue({
            code: 'custom',
            message: `image input is not supported by ${planModelId} on the plan channel`,
            path: ['messages', index, 'content', partIndex],
            params: unsupportedContentType,
          });
        }
      });
    });
  }
  if (Array.isArray(tools)) {
    tools.forEach((tool, index) => {
      if (isObject(tool) && tool.type === 'web_search') {
        ctx.addIssue({
          code: 'custom',
          message: `the web_search tool is not supported by ${planModelId} on the plan channel`,
          path: ['tools', index],
          params: unsupportedContentType,
        });
      }
    });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
