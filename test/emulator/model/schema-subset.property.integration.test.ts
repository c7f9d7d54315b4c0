import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../../../src/api/types/chat.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { Emulator } from '../../../src/emulator/types.js';
import { callEmulator } from '../../helpers/call-emulator.js';

// The JSON Schema shapes the contract test above does not generate: boolean subschemas, recursive `$ref`
// schemas with finite solutions, tuples (`prefixItems`), arrays of patterned strings, formats and numeric
// rules together. Every tool call and every strict answer is checked with ajv's 2020-12 validator.

type Schema = Record<string, unknown> | boolean;

const addFormats = formatsModule.default;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

const PATTERNS = [
  '^[a-z]+\\.[a-z]+$',
  '^[A-Z]{2}-\\d{3}$',
  '^(red|green|blue)$',
  '^\\d{4}$',
  '^[a-z0-9_]{3,8}$',
];
const FORMATS = ['uuid', 'email', 'date', 'date-time', 'ipv4', 'hostname', 'time'];

const stringSchema = fc.oneof(
  fc.constantFrom(...PATTERNS).map((pattern) => ({ type: 'string', pattern })),
  fc.constantFrom(...FORMATS).map((format) => ({ type: 'string', format })),
  fc
    .tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 10 }))
    .map(([min, extra]) => ({ type: 'string', minLength: min, maxLength: min + extra })),
);

const numberSchema = fc
  .record({
    integer: fc.boolean(),
    min: fc.integer({ min: -50, max: 50 }),
    span: fc.integer({ min: 1, max: 100 }),
    exclusive: fc.boolean(),
    step: fc.option(fc.constantFrom(3, 7, 0.5), { nil: undefined }),
  })
  .filter(({ span, step, exclusive }) => step === undefined || span > step * 2 + (exclusive ? step : 0))
  .map(({ integer, min, span, exclusive, step }) => ({
    type: integer ? 'integer' : 'number',
    ...(exclusive
      ? { exclusiveMinimum: min, exclusiveMaximum: min + span }
      : { minimum: min, maximum: min + span }),
    ...(step === undefined ? {} : { multipleOf: step }),
  }));

const leafSchema: fc.Arbitrary<Schema> = fc.oneof(
  stringSchema,
  numberSchema,
  fc.constant({ type: 'boolean' }),
  fc.constant({ enum: ['a', 1, null] }),
  fc.constant({ const: 'fixed' }),
  fc.constant(true),
);

const arraySchema: fc.Arbitrary<Schema> = fc.oneof(
  // A tuple, closed or followed by more items of one schema.
  fc
    .tuple(fc.array(leafSchema, { minLength: 1, maxLength: 3 }), fc.option(leafSchema, { nil: undefined }))
    .map(([prefix, rest]) => ({ type: 'array', prefixItems: prefix, items: rest ?? false })),
  // No item allowed at all.
  fc.constant({ type: 'array', items: false }),
  // Strings each matching a pattern, several of them.
  fc
    .tuple(fc.constantFrom(...PATTERNS), fc.integer({ min: 0, max: 3 }))
    .map(([pattern, min]) => ({ type: 'array', items: { type: 'string', pattern }, minItems: min })),
  fc
    .tuple(leafSchema, fc.integer({ min: 0, max: 2 }))
    .map(([items, min]) => ({ type: 'array', items, minItems: min })),
);

const TREE = {
  type: 'object',
  properties: { root: { $ref: '#/$defs/node' } },
  required: ['root'],
  $defs: {
    node: {
      type: 'object',
      properties: {
        value: { type: 'integer' },
        children: { type: 'array', items: { $ref: '#/$defs/node' } },
      },
      required: ['value'],
    },
  },
};
const LINKED_LIST = {
  type: 'object',
  properties: { head: { $ref: '#/$defs/cell' } },
  required: ['head'],
  $defs: {
    cell: {
      type: 'object',
      properties: {
        label: { type: 'string' },
        next: { anyOf: [{ $ref: '#/$defs/cell' }, { type: 'null' }] },
      },
      required: ['label', 'next'],
      additionalProperties: false,
    },
  },
};

const NAMES = ['code', 'tags', 'when', 'owner', 'count', 'ratio', 'pair', 'level', 'note', 'items'];

const objectSchema: fc.Arbitrary<Schema> = fc
  .tuple(
    fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), fc.oneof(leafSchema, arraySchema)), {
      minLength: 1,
      maxLength: 4,
      selector: ([name]) => name,
    }),
    fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
    fc.boolean(),
  )
  .map(([entries, flags, forbidExtra]) => {
    const properties: Record<string, Schema> = Object.fromEntries(entries);
    // An optional property no value may take: present in the schema, never in the answer.
    if (forbidExtra) properties.forbidden = false;
    const keys = entries.map(([name]) => name);
    return {
      type: 'object',
      properties,
      required: keys.filter((_, i) => flags[i % flags.length]),
      additionalProperties: false,
    };
  });

const anySchema: fc.Arbitrary<Schema> = fc.oneof(
  { arbitrary: objectSchema, weight: 8 },
  { arbitrary: fc.constantFrom(TREE, LINKED_LIST), weight: 2 },
);

const PROMPTS = [
  'Use do_task: file ada.lovelace and grace.hopper under code AB-123',
  'Use do_task for owner ada@example.com on 2026-03-14 at 09:30, count 12',
  'Use do_task: hello there',
  'Use do_task with ratio 0.5 and level green, tags red and blue',
];

describe('emulator model over the JSON Schema subset', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
  });
  afterAll(() => emu.close());

  const complete = async (body: Record<string, unknown>) => {
    const res = await callEmulator(emu.baseURL, emu.apiKey, 'POST', '/v1/chat/completions', body);
    expect(res.status, res.text).toBe(200);
    return res.json<ChatCompletion>().choices[0]!.message;
  };

  describe('when a tool has a schema with boolean subschemas, recursion or tuples', () => {
    it('should send arguments valid against it, ask a question, or refuse a spec-shaped 400, never a 5xx', async () => {
      const outcomes = { calls: 0, other: 0, refused: 0 };
      await fc.assert(
        fc.asyncProperty(anySchema, fc.constantFrom(...PROMPTS), async (schema, prompt) => {
          const res = await callEmulator(emu.baseURL, emu.apiKey, 'POST', '/v1/chat/completions', {
            model: 'svc-3.5-flash',
            messages: [{ role: 'user', content: prompt }],
            tools: [
              {
                type: 'function',
                function: { name: 'do_task', description: 'Does the task', parameters: schema },
              },
            ],
          });
          // The spec wants each tool parameter to be an object with a `type`: `code: true` is refused.
          if (res.status === 400) {
            expect(res.json()).toMatchObject({ error: { type: 'request_params_invalid' } });
            expect(res.text).toMatch(/tools\[0\]\.function\.parameters/);
            outcomes.refused++;
            return;
          }
          expect(res.status, res.text).toBe(200);
          const message = res.json<ChatCompletion>().choices[0]!.message;
          for (const call of message.tool_calls ?? []) {
            const args = JSON.parse(call.function.arguments ?? '') as unknown;
            expect(
              ajv.validate(schema, args),
              `${JSON.stringify(args)} vs ${JSON.stringify(schema)}: ${ajv.errorsText()}`,
            ).toBe(true);
          }
          if ((message.tool_calls ?? []).length > 0) outcomes.calls++;
          else outcomes.other++;
        }),
        { numRuns: 200, seed: 39 },
      );
      // A model that never called the tool would pass the validity check trivially.
      expect(outcomes.calls).toBeGreaterThan(outcomes.other + outcomes.refused);
    });
  });

  describe('when strict json_schema output has such a schema', () => {
    it('should always answer JSON valid against it', async () => {
      await fc.assert(
        fc.asyncProperty(anySchema, fc.constantFrom(...PROMPTS), async (schema, prompt) => {
          const message = await complete({
            model: 'svc-3.5-flash',
            messages: [{ role: 'user', content: prompt }],
            response_format: { type: 'json_schema', json_schema: { name: 'answer', strict: true, schema } },
          });
          const content = message.content ?? '';
          const json = JSON.parse(content) as unknown;
          expect(
            ajv.validate(schema, json),
            `${content} vs ${JSON.stringify(schema)}: ${ajv.errorsText()}`,
          ).toBe(true);
        }),
        { numRuns: 200, seed: 40 },
      );
    });
  });
});
