import { describe, expect, it } from 'vitest';
import { validateMessagesCountTokensParams } from '../../../src/api/schemas/messages-count-tokens-params-schema.js';
import { issueLinesOf, validationErrorOf } from '../../helpers/validation-error-of.js';

const createParams = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'svc-3.5-flash',
  messages: [{ role: 'user', content: 'Hello' }],
  ...overrides,
});

const imageBlock = {
  type: 'image',
  source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
};

describe('validateMessagesCountTokensParams', () => {
  describe('when the request is valid', () => {
    it('should pass system, tools and every block type, keeping unknown fields and block types', () => {
      const params = createParams({
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        tools: [
          { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: {} } },
          { type: 'web_search_20250305', name: 'web_search' },
        ],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather?' }, imageBlock] },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: '...', signature: 'sig' },
              { type: 'tool_use', id: 'tu_1', name: 'get_weather', input: { city: 'Oslo' } },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: 'Sunny' }] },
        ],
      });
      expect(() => validateMessagesCountTokensParams(params)).not.toThrow();
    });
  });

  describe('when a rule is broken', () => {
    it('should require model and messages and name the operation', () => {
      const error = validationErrorOf(() => validateMessagesCountTokensParams({ messages: [] }));
      expect(error.message.split('\n')).toEqual([
        'model: required',
        'messages: must contain at least one message',
      ]);
      expect(error.operation).toBe('messages.countTokens');
    });

    it('should refuse roles other than user and assistant', () => {
      expect(
        issueLinesOf(() =>
          validateMessagesCountTokensParams(createParams({ messages: [{ role: 'system', content: 'x' }] })),
        ),
      ).toEqual(['messages[0].role: must be "user" or "assistant"']);
    });

    it('should require the fields of known block types', () => {
      const content = [
        { type: 'text' },
        { type: 'tool_use', id: 'x', name: 'f' },
        { type: 'tool_result' },
        { text: 'x' },
      ];
      expect(
        issueLinesOf(() =>
          validateMessagesCountTokensParams(createParams({ messages: [{ role: 'user', content }] })),
        ),
      ).toEqual([
        'messages[0].content[0].text: required for a "text" block',
        'messages[0].content[1].input: required for a "tool_use" block',
        'messages[0].content[2].tool_use_id: required for a "tool_result" block',
        'messages[0].content[3].type: required',
      ]);
    });

    it('should require an input_schema of type object on a custom tool', () => {
      const tools = [{ name: 'f' }, { name: 'g', input_schema: { type: 'array' } }];
      expect(issueLinesOf(() => validateMessagesCountTokensParams(createParams({ tools })))).toEqual([
        'tools[0].input_schema: required',
        'tools[1].input_schema.type: must be "object"',
      ]);
    });
  });

  describe('when sent to the plan channel', () => {
    const plan = { channel: 'plan' } as const;

    it('should accept svc-router-v1 with text', () => {
      expect(() =>
        validateMessagesCountTokensParams(createParams({ model: 'svc-router-v1' }), plan),
      ).not.toThrow();
    });

    it('should refuse another model with request_params_invalid', () => {
      const error = validationErrorOf(() => validateMessagesCountTokensParams(createParams(), plan));
      expect(error.message).toBe('model: the plan channel accepts only "svc-router-v1"');
      expect(error.code).toBe('request_params_invalid');
      expect(error.operation).toBe('plan.messages.countTokens');
    });

    it('should refuse image and document blocks, also inside tool results, with unsupported_content_type', () => {
      const document = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } };
      const messages = [
        { role: 'user', content: [{ type: 'text', text: 'x' }, imageBlock, document] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [imageBlock] }] },
      ];
      const error = validationErrorOf(() =>
        validateMessagesCountTokensParams(createParams({ model: 'svc-router-v1', messages }), plan),
      );
      expect(error.message.split('\n')).toEqual([
        'messages[0].content[1]: image input is not supported by svc-router-v1 on the plan channel',
        'messages[0].content[2]: document input is not supported by svc-router-v1 on the plan channel',
        'messages[1].content[0].content[0]: image input is not supported by svc-router-v1 on the plan channel',
      ]);
      expect(error.code).toBe('unsupported_content_type');
    });

    it('should refuse the web_search tool with unsupported_content_type', () => {
      const tools = [{ type: 'web_search_20250305', name: 'web_search' }];
      const error = validationErrorOf(() =>
        validateMessagesCountTokensParams(createParams({ model: 'svc-router-v1', tools }), plan),
      );
      expect(error.message).toBe(
        'tools[0]: the web_search tool is not supported by svc-router-v1 on the plan channel',
      );
      expect(error.code).toBe('unsupported_content_type');
    });
  });
});
