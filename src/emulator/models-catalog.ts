import { endToEndAudioModelIds, namedModelIds } from '../api/schemas/model-ids.js';
/** Models the emulator lists, with what they do: exactly the ids the spec names. */
export const MODEL_IDS: readonly string[] = [...namedModelIds];

/** Models that are not chat models. */
export const NON_CHAT_MODELS = new Set(['svc-1x-medium', 'svc-tts-2', 'svc-tts-mini', 'svc-tts-vivid']);

/** End-to-end audio models that can answer with audio. */
export const AUDIO_MODELS: ReadonlySet<string> = endToEndAudioModelIds;

/** Owner of every model. */
export const MODEL_OWNER = 'svc';
/** Fixed creation time of listed models (deterministic listings). */
export const MODEL_CREATED = 1_735_689_600;
