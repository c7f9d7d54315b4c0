import type { ChatCompletionCreateParams } from '../types/chat.js';
import {
  endToEndAudioModelIds,
  jsonSchemaModelIds,
  namedModelIds,
  planModelId,
  textOnlyModelIds,
  toolModelIds,
} from './model-ids.js';

/**
 * Whether `model` can serve this request's features: function tools, `json_schema` output and audio
 * output, by the spec's model lists. An id the spec does not name is assumed able (as the validator does).
 */
export function modelSupportsRequest(model: string, params: ChatCompletionCreateParams): boolean {
  if (!namedModelIds.has(model)) return true;
  // The plan model lives on another channel: a default-channel request cannot move to it, nor back.
  if ((model === planModelId) !== (params.model === planModelId)) return false;
  if ((params.tools ?? []).some((tool) => tool.type === 'function') && !toolModelIds.has(model)) return false;
  if (params.response_format?.type === 'json_schema' && !jsonSchemaModelIds.has(model)) return false;
  const wantsAudio = (params.modalities ?? []).includes('audio');
  if (wantsAudio && (textOnlyModelIds.has(model) || !endToEndAudioModelIds.has(model))) return false;
  // End-to-end audio models require `modalities`: a text request cannot fall back onto one.
  if (params.modalities === undefined && endToEndAudioModelIds.has(model)) return false;
  return true;
}
