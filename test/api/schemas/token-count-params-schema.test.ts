import { describe, expect, it } from 'vitest';
import { validateTokenCountParams } from '../../../src/api/schemas/token-count-params-schema.js';
import { issueLinesOf, validationErrorOf } from '../../helpers/validation-error-of.js';

const createParams = (messages: unknown[]) => ({ model: 'svc-3.5-flash', messages });

describe('validateTokenCountParams', () => {
  describe('when the request is valid', () => {
    it('should pass system, user (text and image parts) and assistant messages', () => {
      const params = createParams([
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
          ],
        },
        { role: 'assistant', content: 'A cat.' },
      ]);
      expect(() => validateTokenCountParams(params)).not.toThrow();
    });
  });

  describe('when a rule is broken', () => {
    it('should require model and messages', () => {
      const error = validationErrorOf(() => validateTokenCountParams({}));
      expect(error.message.split('\n')).toEqual(['model: required', 'messages: required']);
      expect(error.operation).toBe('tokens.count');
    });

    it('should refuse the tool role', () => {
      expect(
        issueLinesOf(() =>
          validateTokenCountParams(createParams([{ role: 'tool', content: 'x', tool_call_id: 'c' }])),
        ),
      ).toEqual([
        'messages[0].role: the "tool" role is not accepted by token counting; use "system", "user" or "assistant"',
      ]);
    });

    it('should refuse an unknown role with the list of roles', () => {
      expect(
        issueLinesOf(() => validateTokenCountParams(createParams([{ role: 'bot', content: 'x' }]))),
      ).toEqual(['messages[0].role: must be one of "system", "user" or "assistant"']);
    });

    it('should refuse video and audio parts', () => {
      const content = [
        { type: 'video_url', video_url: { url: 'https://example.com/v.mp4' } },
        { type: 'input_audio', input_audio: { data: 'data:audio/mp3;base64,SUQz' } },
      ];
      expect(issueLinesOf(() => validateTokenCountParams(createParams([{ role: 'user', content }])))).toEqual(
        [
          'messages[0].content[0].type: must be "text" or "image_url"',
          'messages[0].content[1].type: must be "text" or "image_url"',
        ],
      );
    });

    it('should refuse the detail field and bad image addresses', () => {
      const content = [
        { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
        { type: 'image_url', image_url: { url: 'data:image/tiff;base64,SUkq' } },
      ];
      expect(issueLinesOf(() => validateTokenCountParams(createParams([{ role: 'user', content }])))).toEqual(
        [
          'messages[0].content[0].image_url.detail: is not accepted by token counting; remove it',
          'messages[0].content[1].image_url.url: image/tiff is not supported; use data:image/<jpg|jpeg|png|webp|gif>;base64,...',
        ],
      );
    });
  });
});
