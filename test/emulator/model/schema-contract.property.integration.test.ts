import { Ajv } from 'ajv';
import formatsModule from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../../../src/api/types/chat.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { Emulator } from '../../../src/emulator/types.js';
import { callEmulator } from '../../helpers/call-emulator.js';

type Schema = Record<string, unknown>;

// ajv-formats is CommonJS: under NodeNext its default import is the module, whose `default` is the plugin.
const addFormats = formatsModule.default;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);

const PATTERNS = [
  '^[A-Z]{1,5}$',
  '^[a-z]{3}-\\d{3}$',
  '^TKT-[0-9]{4}$',
  '^\\d{5}(-\\d{4})?$',
  '^(low|medium|high)$',
  '^[A-Za-z0-9_]{4,12}$',
  '^#[0-9a-fA-F]{6}$',
  '^[a-z]+(\\.[a-z]+)*$',
  '^[A-Z]{2}\\d{2}[A-Z0-9]{4}$',
];
const FORMATS = ['uuid', 'ipv4', 'hostname', 'time', 'date', 'date-time', 'email'];
const NAMES = [
  'ticker',
  'code',
  'ticket_id',
  'host',
  'server_ip',
  'when',
  'start_time',
  'owner',
  'count',
  'ratio',
  'level',
  'tags',
  'note',
  'id',
  'zip',
];

const stringSchema: fc.Arbitrary<Schema> = fc.oneof(
  fc.constantFrom(...FORMATS).map((format) => ({ type: 'string', format })),
  fc.constantFrom(...PATTERNS).map((pattern) => ({ type: 'string', pattern })),
  fc
    .tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 14 }))
    .map(([min, extra]) => ({ type: 'string', minLength: min, maxLength: min + extra })),
  fc.constant({ type: 'string', description: 'Free text' }),
);

const numberSchema: fc.Arbitrary<Schema> = fc
  .record({
    integer: fc.boolean(),
    min: fc.integer({ min: -20, max: 50 }),
    span: fc.integer({ min: 1, max: 200 }),
    exclusive: fc.boolean(),
    step: fc.option(fc.constantFrom(2, 5, 10, 0.5, 0.25), { nil: undefined }),
  })
  .map(({ integer, min, span, exclusive, step }) => ({
    type: integer ? 'integer' : 'number',
    ...(exclusive ? { exclusiveMinimum: min } : { minimum: min }),
    maximum: min + span,
    ...(step === undefined ? {} : { multipleOf: step }),
  }));

const leafSchema: fc.Arbitrary<Schema> = fc.oneof(
  stringSchema,
  numberSchema,
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: 'string', enum: ['low', 'normal', 'urgent'] }),
  fc
    .tuple(fc.integer({ min: 1, max: 2 }), fc.integer({ min: 0, max: 2 }), fc.boolean())
    .map(([min, extra, unique]) => ({
      type: 'array',
      items: { type: 'string', enum: ['red', 'green', 'blue', 'black'] },
      minItems: min,
      maxItems: min + extra,
      uniqueItems: unique,
    })),
);

function objectOf(entries: Array<[string, Schema]>, requiredFlags: boolean[]): Schema {
  const properties = Object.fromEntries(entries);
  const keys = Object.keys(properties);
  return {
    type: 'object',
    properties,
    required: keys.filter((_, i) => requiredFlags[i % requiredFlags.length]),
    additionalProperties: false,
  };
}

const objectSchema: fc.Arbitrary<Schema> = fc
  .tuple(
    fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), leafSchema), {
      minLength: 1,
      maxLength: 5,
      selector: ([name]) => name,
    }),
    fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
    fc.option(fc.tuple(fc.constantFrom('address', 'limits'), numberSchema, stringSchema), { nil: undefined }),
  )
  .map(([entries, flags, nested]) => {
    const all: Array<[string, Schema]> = [...entries];
    if (nested)
      all.push([
        nested[0],
        objectOf(
          [
            ['value', nested[1]],
            ['label', nested[2]],
          ],
          [true],
        ),
      ]);
    return objectOf(all, flags);
  });

const PROMPTS = [
  'Look up the price of AAPL for me',
  'Create ticket TKT-1234 for server 10.0.0.7 tomorrow at 3pm, priority high',
  'Email ada@example.com about host api.example.com',
  'Book 3 rooms for 2026-03-14 at 09:30',
  'Set the volume to 37% and tag it red and blue',
  'hello',
  'Please do the task with code abc-123 and zip 10115',
  'Paint the wall #1a2B3c, owner Grace Hopper, ratio 0.75',
];

describe('emulator model contract', () => {
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

  const isQuestion = (text: string | null | undefined) =>
    typeof text === 'string' && text.trim().endsWith('?');

  describe('when a tool has a generated schema', () => {
    it('should send only arguments valid against it, or ask a question', async () => {
      const outcomes = { valid: 0, question: 0, text: 0 };
      await fc.assert(
        fc.asyncProperty(objectSchema, fc.constantFrom(...PROMPTS), async (schema, prompt) => {
          const message = await complete({
            model: 'svc-3.5-flash',
            messages: [{ role: 'user', content: `Use do_task: ${prompt}` }],
            tools: [
              {
                type: 'function',
                function: { name: 'do_task', description: 'Does the task', parameters: schema },
              },
            ],
          });
          const calls = message.tool_calls ?? [];
          for (const call of calls) {
            const args = JSON.parse(call.function.arguments ?? '') as unknown;
            const valid = ajv.validate(schema, args);
            expect(valid, `${JSON.stringify(args)} vs ${JSON.stringify(schema)}: ${ajv.errorsText()}`).toBe(
              true,
            );
          }
          if (calls.length > 0) outcomes.valid++;
          else if (isQuestion(message.content)) outcomes.question++;
          else outcomes.text++;
        }),
        { numRuns: 50, seed: 7 },
      );
      // Mostly calls: a model that only asked questions would pass the check above trivially.
      expect(outcomes.valid).toBeGreaterThan(outcomes.question + outcomes.text);
    });
  });

  describe('when strict json_schema output has a generated schema', () => {
    it('should answer JSON valid against it, or ask a question', async () => {
      const outcomes = { valid: 0, question: 0 };
      await fc.assert(
        fc.asyncProperty(objectSchema, fc.constantFrom(...PROMPTS), async (schema, prompt) => {
          const message = await complete({
            model: 'svc-3.5-flash',
            messages: [{ role: 'user', content: prompt }],
            response_format: { type: 'json_schema', json_schema: { name: 'answer', strict: true, schema } },
          });
          const content = message.content ?? '';
          if (isQuestion(content) && !content.trim().startsWith('{')) {
            outcomes.question++;
            return;
          }
          const json = JSON.parse(content) as unknown;
          expect(
            ajv.validate(schema, json),
            `${content} vs ${JSON.stringify(schema)}: ${ajv.errorsText()}`,
          ).toBe(true);
          outcomes.valid++;
        }),
        { numRuns: 50, seed: 11 },
      );
      expect(outcomes.valid).toBeGreaterThan(outcomes.question * 4);
    });
  });
});
