import { describe, expect, it } from 'vitest';
import { validateChatCompletionParams } from '../../../src/api/schemas/chat-completion-params-validator.js';
import { issueLinesOf, validationErrorOf } from '../../helpers/validation-error-of.js';

const createPlanParams = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'svc-router-v1',
  messages: [{ role: 'user', content: 'Plan my week' }],
  ...overrides,
});

const plan = { channel: 'plan' } as const;

describe('validateChatCompletionParams on the plan channel', () => {
  describe('when the request is valid', () => {
    it('should pass svc-router-v1 with function tools, video parts and max_tokens of 384K', () => {
      const params = createPlanParams({
        max_tokens: 384 * 1024,
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'x' },
              { type: 'video_url', video_url: { url: 'https://example.com/v.mp4' } },
            ],
          },
        ],
      });
      expect(() => validateChatCompletionParams(params, plan)).not.toThrow();
    });
  });

  describe('when the model is not svc-router-v1', () => {
    it('should refuse it with request_params_invalid', () => {
      const error = validationErrorOf(() =>
        validateChatCompletionParams(createPlanParams({ model: 'svc-3.5-flash' }), plan),
      );
      expect(error.message).toBe('model: the plan channel accepts only "svc-router-v1"');
      expect(error.code).toBe('request_params_invalid');
      expect(error.operation).toBe('plan.chat.completions.create');
    });
  });

  describe('when the request carries image input', () => {
    it('should refuse each image part with unsupported_content_type', () => {
      const messages = [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
      ];
      const error = validationErrorOf(() =>
        validateChatCompletionParams(createPlanParams({ messages }), plan),
      );
      expect(error.message).toBe(
        'messages[0].content[1]: image input is not supported by svc-router-v1 on the plan channel',
      );
      expect(error.code).toBe('unsupported_content_type');
      expect(error.issues[0]?.code).toBe('unsupported_content_type');
    });
  });

  describe('when the tools include web_search', () => {
    it('should refuse it with unsupported_content_type', () => {
      const tools = [
        { type: 'function', function: { name: 'f' } },
        { type: 'web_search', function: { description: 'search' } },
      ];
      const error = validationErrorOf(() => validateChatCompletionParams(createPlanParams({ tools }), plan));
      expect(error.message).toBe(
        'tools[1]: the web_search tool is not supported by svc-router-v1 on the plan channel',
      );
      expect(error.code).toBe('unsupported_content_type');
    });
  });

  describe('when max_tokens exceeds 384K', () => {
    it('should refuse it with request_params_invalid', () => {
      const error = validationErrorOf(() =>
        validateChatCompletionParams(createPlanParams({ max_tokens: 384 * 1024 + 1 }), plan),
      );
      expect(error.message).toBe('max_tokens: must be at most 393216 (384K) for svc-router-v1');
      expect(error.code).toBe('request_params_invalid');
    });
  });

  describe('when parameter and content rules are broken together', () => {
    it('should list both and answer request_params_invalid', () => {
      const error = validationErrorOf(() =>
        validateChatCompletionParams(
          createPlanParams({ temperature: 5, tools: [{ type: 'web_search' }] }),
          plan,
        ),
      );
      expect(error.message.split('\n')).toEqual([
        'temperature: must be between 0 and 2',
        'tools[0]: the web_search tool is not supported by svc-router-v1 on the plan channel',
      ]);
      expect(error.issues.map((issue) => issue.code)).toEqual([
        'request_params_invalid',
        'unsupported_content_type',
      ]);
      expect(error.code).toBe('request_params_invalid');
    });
  });

  describe('when the same request goes to the default channel', () => {
    it('should not apply the plan rules', () => {
      const params = {
        model: 'svc-3.5-flash',
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://e.com/a.png' } }] },
        ],
        tools: [{ type: 'web_search' }],
      };
      expect(() => validateChatCompletionParams(params, { channel: 'default' })).not.toThrow();
      expect(issueLinesOf(() => validateChatCompletionParams(params, plan))).toEqual([
        'model: the plan channel accepts only "svc-router-v1"',
      ]);
    });
  });
});
