import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolDefinitionError } from '../../src/tools/errors.js';
import type { ToolParameters } from '../../src/tools/tool-parameters.js';

function definitionError(parameters: unknown): Error {
  try {
    defineTool({
      name: 'plan',
      description: 'Plans a trip.',
      parameters: parameters as ToolParameters,
      execute: () => 'ok',
    });
  } catch (error) {
    expect(error).toBeInstanceOf(ToolDefinitionError);
    return error as Error;
  }
  throw new Error('expected defineTool to refuse the schema');
}

describe('defineTool on schemas no call could pass', () => {
  it('should refuse z.date() and z.bigint() from zod/v3, naming the field', () => {
    expect(definitionError(z3.object({ when: z3.date() })).message).toMatch(
      /parameters\.when: z\.date\(\) from zod\/v3/,
    );
    expect(definitionError(z3.object({ trip: z3.object({ n: z3.bigint().optional() }) })).message).toMatch(
      /parameters\.trip\.n: z\.bigint\(\) from zod\/v3/,
    );
    expect(definitionError(z3.object({ days: z3.array(z3.date()) })).message).toMatch(/parameters\.days\[\]/);
  });

  it('should refuse async refinements and transforms in zod 4, and async superRefine/transform in zod/v3', () => {
    expect(definitionError(z.object({ city: z.string().refine(async (v) => v !== '') })).message).toMatch(
      /parameters\.city: an async refinement can never run/,
    );
    expect(definitionError(z.object({ city: z.string().transform(async (v) => v) })).message).toMatch(
      /an async transform/,
    );
    expect(
      definitionError(z3.object({ city: z3.string().superRefine(async () => undefined) })).message,
    ).toMatch(/parameters\.city: an async refinement can never run/);
    expect(definitionError(z3.object({ city: z3.string().transform(async (v) => v) })).message).toMatch(
      /async transform/,
    );
  });

  it('should still accept sync refinements and ordinary zod/v3 schemas', () => {
    const tool = defineTool({
      name: 'plan',
      description: 'Plans a trip.',
      parameters: z3.object({
        city: z3.string().refine((v) => v !== ''),
        when: z3.string().datetime().optional(),
      }),
      execute: () => 'ok',
    });
    expect(tool.parseArguments('{"city":"Paris"}').ok).toBe(true);
    expect(
      defineTool({
        name: 'p4',
        description: 'd',
        parameters: z.object({ city: z.string().refine((v) => v !== '') }),
        execute: () => 1,
      }).parseArguments('{"city":""}').ok,
    ).toBe(false);
  });
});
