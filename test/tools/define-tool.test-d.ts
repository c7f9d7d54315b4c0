import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import type { ToolDefinition } from '../../src/api/types/chat.js';
import { createToolSet } from '../../src/tools/create-tool-set.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { hostedTools } from '../../src/tools/hosted-tools.js';
import type { Tool, ToolContext } from '../../src/tools/tool.js';

describe('defineTool', () => {
  describe('when parameters are a zod 4 object', () => {
    it('should type execute args from the schema output', () => {
      const tool = defineTool({
        name: 'get_weather',
        description: 'Weather.',
        parameters: z.object({
          city: z.string(),
          days: z.number().int().optional(),
          unit: z.enum(['c', 'f']).default('c'),
          tags: z.array(z.string()),
          country: z.string().nullable(),
        }),
        execute: (args, ctx) => {
          expectTypeOf(args.city).toEqualTypeOf<string>();
          expectTypeOf(args.days).toEqualTypeOf<number | undefined>();
          expectTypeOf(args.unit).toEqualTypeOf<'c' | 'f'>();
          expectTypeOf(args.tags).toEqualTypeOf<string[]>();
          expectTypeOf(args.country).toEqualTypeOf<string | null>();
          expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
          expectTypeOf(ctx.toolCallId).toEqualTypeOf<string>();
          return { temperature: 21 };
        },
      });
      expectTypeOf(tool).toExtend<Tool>();
      const parsed = tool.parseArguments('{}');
      if (parsed.ok) expectTypeOf(parsed.value.city).toEqualTypeOf<string>();
      expectTypeOf(tool.execute).returns.toEqualTypeOf<
        { temperature: number } | Promise<{ temperature: number }>
      >();
    });

    it('should type needsApproval args and the user context', () => {
      defineTool({
        name: 'delete_row',
        description: 'Deletes a row.',
        parameters: z.object({ id: z.number() }),
        needsApproval: (args, ctx: ToolContext<{ userId: string }>) => {
          expectTypeOf(args.id).toEqualTypeOf<number>();
          expectTypeOf(ctx.context.userId).toEqualTypeOf<string>();
          return args.id > 10;
        },
        execute: (_args, ctx) => {
          expectTypeOf(ctx.context).toEqualTypeOf<{ userId: string }>();
        },
      });
    });

    it('should reject execute code that misuses the args', () => {
      defineTool({
        name: 'get_weather',
        description: 'Weather.',
        parameters: z.object({ city: z.string() }),
        execute: (args) => {
          // @ts-expect-error city is a string, not a number
          const n: number = args.city;
          // @ts-expect-error no such argument
          return [n, args.country];
        },
      });
    });
  });

  describe('when parameters are a zod 3 object', () => {
    it('should type execute args from the schema output', () => {
      defineTool({
        name: 'get_weather',
        description: 'Weather.',
        parameters: z3.object({ city: z3.string(), days: z3.number().optional() }),
        execute: (args) => {
          expectTypeOf(args.city).toEqualTypeOf<string>();
          expectTypeOf(args.days).toEqualTypeOf<number | undefined>();
        },
      });
    });
  });

  describe('when parameters are a JSON Schema', () => {
    it('should type execute args as a plain record', () => {
      defineTool({
        name: 'get_weather',
        description: 'Weather.',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        execute: (args) => {
          expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        },
      });
    });
  });
});

describe('JSON Schema parameters declared as const', () => {
  it('should be accepted', () => {
    const parameters = {
      type: 'object',
      properties: { city: { type: 'string', description: 'City' } },
      required: ['city'],
    } as const;
    const tool = defineTool({
      name: 'get_weather',
      description: 'Weather.',
      parameters,
      execute: () => 'ok',
    });
    expectTypeOf(tool.parseArguments).returns.toExtend<{ ok: boolean }>();
  });
});

describe('tools of different argument types', () => {
  it('should share one tool set', () => {
    const a = defineTool({
      name: 'a',
      description: 'A.',
      parameters: z.object({ x: z.string() }),
      execute: ({ x }) => x,
    });
    const b = defineTool({
      name: 'b',
      description: 'B.',
      parameters: z3.object({ n: z3.number() }),
      needsApproval: ({ n }) => n > 1,
      execute: ({ n }) => n,
    });
    const set = createToolSet([a, b, hostedTools.webSearch()]);
    expectTypeOf(set.definitions).toEqualTypeOf<ToolDefinition[]>();
  });
});
