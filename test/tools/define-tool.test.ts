import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { z as z3 } from 'zod/v3';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolDefinitionError } from '../../src/tools/errors.js';
import type { ToolParameters } from '../../src/tools/tool-parameters.js';
import { thrownError } from '../helpers/validation-error-of.js';

function createTool(parameters: ToolParameters, overrides: { name?: string; description?: string } = {}) {
  return defineTool({
    name: overrides.name ?? 'get_weather',
    description: overrides.description ?? 'Current weather of a city.',
    parameters,
    execute: () => 'sunny',
  });
}

function definitionError(run: () => unknown): ToolDefinitionError {
  return thrownError(ToolDefinitionError, run);
}

// The same shape in both zod majors: every type the spec allows, with descriptions.
const expectedProperties = {
  city: { type: 'string', description: 'City name' },
  temperature: { type: 'number' },
  days: { type: 'integer', description: 'How many days' },
  metric: { type: 'boolean' },
  location: {
    type: 'object',
    properties: { lat: { type: 'number' }, lon: { type: 'number' } },
    required: ['lat', 'lon'],
  },
  tags: { type: 'array', items: { type: 'string' } },
  unit: { type: 'string', enum: ['c', 'f'] },
};

// The same weather tool in each zod major.
const weatherParameters = [
  {
    zod: 'zod 4',
    parameters: z.object({
      city: z.string().describe('City name'),
      temperature: z.number(),
      days: z.number().int().describe('How many days'),
      metric: z.boolean(),
      location: z.object({ lat: z.number(), lon: z.number() }),
      tags: z.array(z.string()),
      unit: z.enum(['c', 'f']),
      note: z.string().optional(),
      country: z.string().nullable(),
    }),
  },
  {
    zod: 'zod 3 from zod/v3',
    parameters: z3.object({
      city: z3.string().describe('City name'),
      temperature: z3.number(),
      days: z3.number().int().describe('How many days'),
      metric: z3.boolean(),
      location: z3.object({ lat: z3.number(), lon: z3.number() }),
      tags: z3.array(z3.string()),
      unit: z3.enum(['c', 'f']),
      note: z3.string().optional(),
      country: z3.string().nullable(),
    }),
  },
];

describe('defineTool', () => {
  describe.each(weatherParameters)('when parameters are a $zod object', ({ parameters: schema }) => {
    const tool = createTool(schema);
    const parameters = tool.definition.function.parameters!;

    it('should emit the wire definition with a root object and no $schema', () => {
      expect(tool.definition.type).toBe('function');
      expect(tool.definition.function.name).toBe('get_weather');
      expect(tool.definition.function.description).toBe('Current weather of a city.');
      expect(parameters.type).toBe('object');
      expect(parameters).not.toHaveProperty('$schema');
    });

    it('should convert every allowed type with its description', () => {
      expect(parameters.properties).toMatchObject(expectedProperties);
      expect(parameters.properties?.note).toEqual({ type: 'string' });
      expect(parameters.properties?.country).toEqual({ type: ['string', 'null'] });
    });

    it('should list required fields and leave optional ones out', () => {
      expect(parameters.required).toEqual(
        expect.arrayContaining([
          'city',
          'temperature',
          'days',
          'metric',
          'location',
          'tags',
          'unit',
          'country',
        ]),
      );
      expect(parameters.required).not.toContain('note');
    });

    it('should write an integer without the safe-integer bounds zod 4 adds to int()', () => {
      expect(parameters.properties?.days).toEqual({ type: 'integer', description: 'How many days' });
    });

    it('should validate arguments with the same schema', () => {
      const result = tool.parseArguments(JSON.stringify({ city: 3 }));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toContain('city: expected string, got number');
    });
  });

  describe('when parameters are a zod/mini object', () => {
    it('should convert and validate through zod core', () => {
      const tool = createTool(zm.object({ city: zm.string(), days: zm.optional(zm.number()) }));
      expect(tool.definition.function.parameters).toMatchObject({
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'number' } },
        required: ['city'],
      });
      const result = tool.parseArguments('{"city": false}');
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toContain('city: expected string, got boolean');
    });
  });

  describe('when parameters are a plain JSON Schema', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object' as const,
      properties: { city: { type: 'string', description: 'City name' }, days: { type: 'integer' } },
      required: ['city'],
    };
    const tool = createTool(schema);

    it('should keep the schema, without $schema, and not mutate the input', () => {
      expect(tool.definition.function.parameters).toEqual({
        type: 'object',
        properties: { city: { type: 'string', description: 'City name' }, days: { type: 'integer' } },
        required: ['city'],
      });
      expect(schema.$schema).toBeDefined();
    });

    it('should validate required fields and basic types', () => {
      const missing = tool.parseArguments('{"days": 2}');
      expect(missing.ok).toBe(false);
      if (!missing.ok)
        expect(missing.error.message).toBe('Invalid arguments for get_weather: city: required');
      const wrong = tool.parseArguments('{"city": "Oslo", "days": 1.5}');
      expect(wrong.ok).toBe(false);
      if (!wrong.ok) expect(wrong.error.message).toContain('days: expected integer, got number');
      expect(tool.parseArguments('{"city": "Oslo", "days": 2}')).toEqual({
        ok: true,
        value: { city: 'Oslo', days: 2 },
      });
    });
  });

  describe('when parameters are omitted', () => {
    it('should define a tool without arguments', () => {
      const tool = defineTool({ name: 'now', description: 'Current time.', execute: () => Date.now() });
      expect(tool.definition.function.parameters).toEqual({ type: 'object', properties: {} });
      expect(tool.parseArguments('')).toEqual({ ok: true, value: {} });
    });
  });

  describe('when the definition is wrong', () => {
    it.each([['1abc'], ['has space'], ['dot.name'], [''], ['a'.repeat(65)]])(
      'should reject the name %j',
      (name) => {
        const error = definitionError(() => createTool(z.object({}), { name }));
        expect(error.toolName).toBe(name);
        expect(error.message).toContain('name must match');
      },
    );

    it('should accept a 64-character name', () => {
      expect(createTool(z.object({}), { name: `_${'a'.repeat(63)}` }).name).toHaveLength(64);
    });

    it('should reject a missing description, naming the tool', () => {
      const error = definitionError(() => createTool(z.object({}), { description: '  ' }));
      expect(error.toolName).toBe('get_weather');
      expect(error.message).toMatch(/^Invalid tool "get_weather": description is required/);
    });

    it.each([
      ['a zod 4 string', z.string()],
      ['a zod 3 string', z3.string()],
      ['a zod 4 union of objects', z.union([z.object({ a: z.string() }), z.object({ b: z.string() })])],
      ['a JSON Schema array', { type: 'array', items: { type: 'string' } }],
    ])('should reject %s as root', (_label, parameters) => {
      const error = definitionError(() => createTool(parameters as ToolParameters));
      expect(error.message).toContain('parameters must describe an object');
    });

    it('should reject parameters that are no schema at all', () => {
      const error = definitionError(() => createTool({ city: 'string' } as unknown as ToolParameters));
      expect(error.message).toContain('parameters must be a zod object schema or a JSON Schema');
    });

    it('should reject a zod 4 type that JSON Schema cannot represent', () => {
      const error = definitionError(() => createTool(z.object({ when: z.date() })));
      expect(error.message).toContain('cannot be converted to JSON Schema');
    });

    it('should reject a conversion that lost the properties of a non-empty object', () => {
      // A zod 4 schema dressed up as zod 3 (no `_zod`) goes to zod-to-json-schema, which answers `{}` for it.
      const zod4 = z.object({ city: z.string() });
      const disguised = { _def: { typeName: 'ZodNotKnown' }, shape: zod4.shape, safeParse: zod4.safeParse };
      const error = definitionError(() => createTool(disguised as unknown as ToolParameters));
      expect(error.message).toContain('lost their properties');
    });

    it('should reject a non-positive timeout', () => {
      const error = definitionError(() =>
        defineTool({ name: 'x', description: 'x', timeoutMs: 0, execute: () => undefined }),
      );
      expect(error.message).toContain('timeoutMs');
    });
  });
});
