import { z } from 'zod';
import { nonEmptyString } from './field-rules.js';
import { voiceModelIds } from './model-ids.js';
import { validateWithSchema } from './validate-with-schema.js';

/** Body of `POST /v1/audio/voices`: clone a voice from a `storage` upload of 5-10 s of mp3 or wav. */
export const voiceCloneParamsSchema = z.object({
  model: z.enum(voiceModelIds),
  file_id: nonEmptyString(),
  text: z.string().optional(),
  sample_text: z.string().max(50, { error: 'must be at most 50 characters' }).optional(),
});

/** Voice-clone params as the schema accepts them. */
export type VoiceCloneParamsInput = z.input<typeof voiceCloneParamsSchema>;

/** Throws `RequestValidationError` when a voice-clone body breaks a rule. */
export function validateVoiceCloneParams(params: unknown): void {
  validateWithSchema(voiceCloneParamsSchema, 'audio.voices.create', params);
}
