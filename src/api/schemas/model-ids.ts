/**
 * Model ids the spec names, and the model-specific rules it gives. A rule applies only to the ids listed
 * here: an unknown id passes through, so a model released tomorrow works without an update.
 */

/** Every model id named in the spec; model-specific rules refuse a feature only for these. */
export const namedModelIds: ReadonlySet<string> = new Set([
  'svc-3.7-flash',
  'svc-3.5-flash',
  'svc-3.5-flash-2603',
  'svc-1o-turbo-vision',
  'svc-router-v1',
  'svcaudio-2.5-chat',
  'svc-1o-audio',
  'svc-audio-2',
  'svc-audio-2-mini',
  'svc-audio-r1.1',
  'svc-1-8k',
  'svc-1v-8k',
  'svc-1x-medium',
  'svc-tts-2',
  'svc-tts-mini',
  'svc-tts-vivid',
]);

/** The only model of the plan channel, and available only there. */
export const planModelId = 'svc-router-v1';

/** `max_tokens` ceiling of the plan model (384K). */
export const planMaxTokens = 384 * 1024;

/** Models that accept `response_format.type: "json_schema"`. */
export const jsonSchemaModelIds: ReadonlySet<string> = new Set(['svc-3.5-flash', 'svc-3.5-flash-2603']);

/** Models whose `reasoning_effort` has fewer than the three usual levels. */
export const reasoningEffortLevels: ReadonlyMap<string, readonly string[]> = new Map([
  ['svc-3.5-flash-2603', ['low', 'high']],
]);

/** Models that answer text only, so `modalities` may not contain `audio`. */
export const textOnlyModelIds: ReadonlySet<string> = new Set(['svcaudio-2.5-chat']);

/** End-to-end audio models: `modalities` is required, and with `audio` in it so is the `audio` object. */
export const endToEndAudioModelIds: ReadonlySet<string> = new Set([
  'svc-1o-audio',
  'svc-audio-2',
  'svc-audio-2-mini',
  'svc-audio-r1.1',
]);

/** Models that speak only with the preset voices (`svc-1o-audio` takes a cloned voice id instead). */
export const presetVoiceModelIds: ReadonlySet<string> = new Set([
  'svc-audio-2',
  'svc-audio-2-mini',
  'svc-audio-r1.1',
]);

/** The preset voices of the `svc-audio-2` models. */
export const presetVoices = [
  'wenrounansheng',
  'qingchunshaonv',
  'livelybreezy-female',
  'elegantgentle-female',
] as const;

/** Voice-cloning models. */
export const voiceModelIds = ['svc-tts-2', 'svc-tts-mini', 'svc-tts-vivid'] as const;

/** Image-generation models. */
export const imageModelIds = ['svc-1x-medium'] as const;

/** Models the spec lists as supporting function tools (end-to-end audio models also answer tool calls). */
export const toolModelIds: ReadonlySet<string> = new Set([
  'svc-3.7-flash',
  'svc-3.5-flash',
  'svc-3.5-flash-2603',
  'svc-router-v1',
  'svc-1o-turbo-vision',
  ...endToEndAudioModelIds,
]);
