import { describe, expect, it } from 'vitest';
import { validateImageGenerateParams } from '../../../src/api/schemas/image-generate-params-schema.js';
import { issueLinesOf, validationErrorOf } from '../../helpers/validation-error-of.js';

const createParams = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'svc-1x-medium',
  prompt: 'A lighthouse at dusk',
  ...overrides,
});

const linesFor = (overrides: Record<string, unknown>) =>
  issueLinesOf(() => validateImageGenerateParams(createParams(overrides)));

describe('validateImageGenerateParams', () => {
  describe('when the request is valid', () => {
    it('should pass every option at its bounds', () => {
      const params = createParams({
        prompt: 'p'.repeat(1024),
        size: '800x1280',
        n: 1,
        response_format: 'b64_json',
        seed: 0,
        steps: 100,
        cfg_scale: 1,
        style_reference: { source_url: 'data:image/png;base64,iVBORw0KGgo=', weight: 2 },
      });
      expect(() => validateImageGenerateParams(params)).not.toThrow();
      expect(() =>
        validateImageGenerateParams(
          createParams({
            steps: 1,
            cfg_scale: 10,
            style_reference: { source_url: 'https://example.com/s.jpg' },
          }),
        ),
      ).not.toThrow();
    });

    it.each(['256x256', '512x512', '768x768', '1024x1024', '1280x800', '800x1280'])(
      'should pass size %s',
      (size) => {
        expect(() => validateImageGenerateParams(createParams({ size }))).not.toThrow();
      },
    );
  });

  describe('when a rule is broken', () => {
    it('should accept only svc-1x-medium and require a prompt', () => {
      const error = validationErrorOf(() => validateImageGenerateParams({ model: 'svc-3.5-flash' }));
      expect(error.message.split('\n')).toEqual(['model: must be "svc-1x-medium"', 'prompt: required']);
      expect(error.operation).toBe('images.generate');
    });

    it.each([
      [{ prompt: 'p'.repeat(1025) }, 'prompt: must be at most 1024 characters'],
      [{ prompt: '' }, 'prompt: must not be empty'],
      [
        { size: '1920x1080' },
        'size: must be one of "256x256", "512x512", "768x768", "1024x1024", "1280x800" or "800x1280"',
      ],
      [{ n: 2 }, 'n: only 1 image per call is supported'],
      [{ response_format: 'png' }, 'response_format: must be "b64_json" or "url"'],
      [{ seed: 1.5 }, 'seed: must be an integer'],
      [{ steps: 0 }, 'steps: must be an integer between 1 and 100'],
      [{ steps: 101 }, 'steps: must be an integer between 1 and 100'],
      [{ cfg_scale: 0.5 }, 'cfg_scale: must be between 1 and 10'],
      [{ cfg_scale: 10.5 }, 'cfg_scale: must be between 1 and 10'],
      [{ style_reference: {} }, 'style_reference.source_url: required'],
      [
        { style_reference: { source_url: 'https://e.com/s.png', weight: 0 } },
        'style_reference.weight: must be greater than 0 and at most 2',
      ],
      [
        { style_reference: { source_url: 'https://e.com/s.png', weight: 2.1 } },
        'style_reference.weight: must be greater than 0 and at most 2',
      ],
      [
        { style_reference: { source_url: 'data:image/webp;base64,UklGRg==' } },
        'style_reference.source_url: image/webp is not supported; use data:image/<png|jpeg>;base64,...',
      ],
      [
        { style_reference: { source_url: 'file:///tmp/s.png' } },
        'style_reference.source_url: must be an http(s) address or a data:image/<png|jpeg>;base64,... URI',
      ],
    ])('should refuse %j', (overrides, line) => {
      expect(linesFor(overrides)).toEqual([line]);
    });

    it('should refuse a style reference data URI over 10 MB', () => {
      const source_url = `data:image/png;base64,${'A'.repeat(Math.ceil((10 * 1024 * 1024 * 4) / 3) + 8)}`;
      expect(linesFor({ style_reference: { source_url } })).toEqual([
        'style_reference.source_url: image must be at most 10 MB',
      ]);
    });
  });
});
