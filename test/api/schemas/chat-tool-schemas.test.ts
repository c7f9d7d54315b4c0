import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateChatCompletionParams } from '../../../src/api/schemas/chat-completion-params-validator.js';
import { issueLinesOf } from '../../helpers/validation-error-of.js';

const withTools = (...tools: unknown[]) => ({
  model: 'svc-3.5-flash',
  messages: [{ role: 'user', content: 'Hi' }],
  tools,
});

const fn = (name: string, parameters?: unknown) => ({
  type: 'function',
  function: { name, description: 'Does a thing', ...(parameters === undefined ? {} : { parameters }) },
});

const linesFor = (...tools: unknown[]) =>
  issueLinesOf(() => validateChatCompletionParams(withTools(...tools)));

describe('tool definitions in chat-completion params', () => {
  describe('when a function name breaks the pattern', () => {
    it.each(['1starts_with_digit', 'has space', 'dotted.name', '', 'a'.repeat(65)])(
      'should refuse %j naming the pattern',
      (name) => {
        expect(linesFor(fn(name))).toEqual([
          'tools[0].function.name: must match ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$',
        ]);
      },
    );

    it('should accept names of up to 64 characters with digits, dashes and underscores', () => {
      expect(() =>
        validateChatCompletionParams(withTools(fn(`_a-1${'b'.repeat(60)}`), fn('get-weather_2'))),
      ).not.toThrow();
    });

    it('should require the name', () => {
      expect(linesFor({ type: 'function', function: {} })).toEqual(['tools[0].function.name: required']);
    });
  });

  describe('when the parameters schema breaks the rules', () => {
    it('should require root type "object"', () => {
      expect(linesFor(fn('f', { type: 'array' }), fn('g', { properties: {} }))).toEqual([
        'tools[0].function.parameters.type: must be "object"',
        'tools[1].function.parameters.type: required, must be "object"',
      ]);
    });

    it('should refuse parameters that are not an object', () => {
      expect(linesFor(fn('f', 'string'))).toEqual([
        'tools[0].function.parameters: must be a JSON Schema object',
      ]);
    });

    it('should refuse property types that are not JSON Schema types', () => {
      const lines = linesFor(
        fn('f', {
          type: 'object',
          properties: { when: { type: 'date' }, tags: { type: 'array', items: { type: 'list' } } },
        }),
      );
      expect(lines).toEqual([
        'tools[0].function.parameters.properties.when.type: must be one of "string", "number", "integer", "object", "array", "boolean" or "null", or an array of them',
        'tools[0].function.parameters.properties.tags.items.type: must be one of "string", "number", "integer", "object", "array", "boolean" or "null", or an array of them',
      ]);
    });

    it('should refuse a property with neither a type nor a combinator', () => {
      expect(linesFor(fn('f', { type: 'object', properties: { 'odd-name': { description: 'x' } } }))).toEqual(
        [
          'tools[0].function.parameters.properties["odd-name"]: needs a "type" (a JSON Schema type) or anyOf/oneOf/allOf/$ref/enum/const',
        ],
      );
    });

    it('should check nested object properties and the required list', () => {
      const lines = linesFor(
        fn('f', {
          type: 'object',
          properties: { address: { type: 'object', properties: { zip: { type: 'zip' } } } },
          required: 'address',
        }),
      );
      expect(lines).toEqual([
        'tools[0].function.parameters.properties.address.properties.zip.type: must be one of "string", "number", "integer", "object", "array", "boolean" or "null", or an array of them',
        'tools[0].function.parameters.required: must be an array of property names',
      ]);
    });
  });

  describe('when the parameters schema is valid', () => {
    it('should accept properties without a description, nullable type arrays and anyOf', () => {
      const parameters = {
        type: 'object',
        properties: {
          city: { type: 'string' },
          unit: { type: ['string', 'null'], enum: ['c', 'f', null] },
          when: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          count: { type: 'integer', description: 'How many' },
          ok: { type: 'boolean' },
          ratio: { type: 'number' },
          nothing: { type: 'null' },
          list: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
        },
        required: ['city'],
        additionalProperties: false,
      };
      expect(() => validateChatCompletionParams(withTools(fn('f', parameters)))).not.toThrow();
    });

    it('should accept what z.toJSONSchema emits for a realistic zod object', () => {
      const node: z.ZodType = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
      const parameters = z.toJSONSchema(
        z.object({
          query: z.string().describe('Search text'),
          limit: z.int().min(1).max(50).optional(),
          order: z.enum(['asc', 'desc']).nullable(),
          filter: z.union([z.string(), z.number()]),
          flag: z.literal('on'),
          tags: z.array(z.string()),
          tree: node,
        }),
      );
      expect(() => validateChatCompletionParams(withTools(fn('search', parameters)))).not.toThrow();
    });

    it('should accept a function tool without parameters', () => {
      expect(() => validateChatCompletionParams(withTools(fn('now')))).not.toThrow();
    });
  });

  describe('when a hosted tool is configured', () => {
    it('should accept web_search with or without a description', () => {
      const tools = [
        { type: 'web_search', function: { description: 'Search the web' } },
        { type: 'web_search' },
      ];
      expect(() => validateChatCompletionParams(withTools(...tools))).not.toThrow();
    });

    it('should accept retrieval with a vector_store_id and a prompt template', () => {
      const retrieval = {
        type: 'retrieval',
        function: {
          name: 'food_nutrition',
          description: 'Nutrition facts',
          options: {
            vector_store_id: '171215831957549056',
            prompt_template: 'From {{knowledge}} answer {{query}}',
          },
        },
      };
      expect(() => validateChatCompletionParams(withTools(retrieval))).not.toThrow();
    });

    it('should require options.vector_store_id for retrieval', () => {
      expect(
        linesFor(
          { type: 'retrieval', function: { name: 'kb', options: {} } },
          { type: 'retrieval', function: { name: 'kb' } },
          { type: 'retrieval', function: { name: 'kb', options: { vector_store_id: '' } } },
        ),
      ).toEqual([
        'tools[0].function.options.vector_store_id: required for a retrieval tool',
        'tools[1].function.options: required for a retrieval tool',
        'tools[2].function.options.vector_store_id: must not be empty',
      ]);
    });

    it('should refuse an unknown tool type', () => {
      expect(linesFor({ type: 'code_interpreter' }, {})).toEqual([
        'tools[0].type: must be one of "function", "web_search" or "retrieval"',
        'tools[1].type: required, must be one of "function", "web_search" or "retrieval"',
      ]);
    });
  });
});
