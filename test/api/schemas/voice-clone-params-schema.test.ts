import { describe, expect, it } from 'vitest';
import { validateVoiceCloneParams } from '../../../src/api/schemas/voice-clone-params-schema.js';
import { issueLinesOf, validationErrorOf } from '../../helpers/validation-error-of.js';

describe('validateVoiceCloneParams', () => {
  describe('when the request is valid', () => {
    it.each(['svc-tts-2', 'svc-tts-mini', 'svc-tts-vivid'])('should pass model %s', (model) => {
      expect(() =>
        validateVoiceCloneParams({
          model,
          file_id: 'file-1',
          text: 'Hello there',
          sample_text: 's'.repeat(50),
        }),
      ).not.toThrow();
    });
  });

  describe('when a rule is broken', () => {
    it('should refuse another model and require file_id', () => {
      const error = validationErrorOf(() => validateVoiceCloneParams({ model: 'svc-audio-2' }));
      expect(error.message.split('\n')).toEqual([
        'model: must be one of "svc-tts-2", "svc-tts-mini" or "svc-tts-vivid"',
        'file_id: required',
      ]);
      expect(error.operation).toBe('audio.voices.create');
    });

    it('should limit sample_text to 50 characters', () => {
      expect(
        issueLinesOf(() =>
          validateVoiceCloneParams({ model: 'svc-tts-2', file_id: 'f', sample_text: 's'.repeat(51) }),
        ),
      ).toEqual(['sample_text: must be at most 50 characters']);
    });
  });
});
