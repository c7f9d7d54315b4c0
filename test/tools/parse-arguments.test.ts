import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { defineTool } from '../../src/tools/define-tool.js';
import { InvalidToolArgumentsError } from '../../src/tools/errors.js';
import type { ToolParameters } from '../../src/tools/tool-parameters.js';

function createTool(parameters: ToolParameters) {
  return defineTool({
    name: 'get_weather',
    description: 'Weather of a city.',
    parameters,
    execute: () => 'ok',
  });
}

function errorOf(
  result: ReturnType<ReturnType<typeof createTool>['parseArguments']>,
): InvalidToolArgumentsError {
  if (result.ok) throw new Error(`expected invalid arguments, got ${JSON.stringify(result.value)}`);
  return result.error;
}

const zod4 = createTool(
  z.object({
    city: z.string(),
    days: z.number().int().optional(),
    unit: z.enum(['c', 'f']).default('c'),
    stops: z.array(z.object({ name: z.string() })).optional(),
  }),
);
const zod3 = createTool(
  z3.object({
    city: z3.string(),
    days: z3.number().int().optional(),
    stops: z3.array(z3.object({ name: z3.string() })).optional(),
  }),
);

describe('Tool.parseArguments', () => {
  describe('when the text is empty', () => {
    it('should mean {} and apply the schema to it', () => {
      const tool = createTool(z.object({ unit: z.enum(['c', 'f']).default('c') }));
      expect(tool.parseArguments('')).toEqual({ ok: true, value: { unit: 'c' } });
      expect(tool.parseArguments('  ')).toEqual({ ok: true, value: { unit: 'c' } });
    });

    it('should still report required fields', () => {
      expect(errorOf(zod4.parseArguments('')).message).toBe(
        'Invalid arguments for get_weather: city: required',
      );
    });
  });

  describe('when the arguments are valid', () => {
    it('should answer the parsed output, defaults applied', () => {
      expect(zod4.parseArguments('{"city":"Oslo"}')).toEqual({
        ok: true,
        value: { city: 'Oslo', unit: 'c' },
      });
    });
  });

  describe('when the arguments are not JSON', () => {
    it('should say so without calling the tool', () => {
      const error = errorOf(zod4.parseArguments('{"city": "Os'));
      expect(error).toBeInstanceOf(InvalidToolArgumentsError);
      expect(error.message).toMatch(/^Invalid arguments for get_weather: arguments are not valid JSON/);
      expect(error.argumentsText).toBe('{"city": "Os');
    });

    it.each([
      ['[]', 'array'],
      ['"Oslo"', 'string'],
      ['null', 'null'],
    ])('should refuse %s as a non-object', (text, type) => {
      expect(errorOf(zod4.parseArguments(text)).message).toBe(
        `Invalid arguments for get_weather: expected a JSON object, got ${type}`,
      );
    });
  });

  describe.each([
    ['zod 4', zod4],
    ['zod 3', zod3],
  ])('when a %s schema is broken', (_label, tool) => {
    it('should report the wrong type with expected and received', () => {
      const error = errorOf(tool.parseArguments('{"city": 3}'));
      expect(error.message).toBe('Invalid arguments for get_weather: city: expected string, got number');
      expect(error.issues).toEqual([{ path: 'city', message: 'expected string, got number' }]);
      expect(error.toolName).toBe('get_weather');
    });

    it('should report nested paths and every issue', () => {
      const error = errorOf(tool.parseArguments('{"city": "Oslo", "days": "2", "stops": [{"name": 1}]}'));
      expect(error.issues.map((issue) => issue.path)).toEqual(['days', 'stops[0].name']);
      expect(error.message).toContain('stops[0].name: expected string, got number');
    });

    it('should report a missing field as required', () => {
      expect(errorOf(tool.parseArguments('{"days": 1}')).issues).toEqual([
        { path: 'city', message: 'required' },
      ]);
    });
  });

  describe('when the schema itself fails while checking', () => {
    it('should report it instead of throwing', () => {
      // (An async refinement is refused by defineTool itself: a refinement that throws stands in.)
      const tool = createTool(
        z.object({
          city: z.string().refine(() => {
            throw new Error('lookup table missing');
          }),
        }),
      );
      const error = errorOf(tool.parseArguments('{"city":"Oslo"}'));
      expect(error.message).toMatch(/^Invalid arguments for get_weather: arguments could not be checked/);
    });
  });
});
