import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { callEmulator } from '../helpers/call-emulator.js';

// Tiny requests that once took the emulator down: an 82-byte `n`, a 240-byte `minLength`, nested
// `minItems`, a backtracking pattern, 40 KB of digits. Each must get an answer (a 200 or a spec-shaped
// 400), and the emulator must go on answering. A request that hangs fails on the test's timeout.

const tool = (parameters: unknown, prompt = 'Please call save_data now') => ({
  model: 'svc-3.5-flash',
  messages: [{ role: 'user', content: prompt }],
  tools: [{ type: 'function', function: { name: 'save_data', description: 'Saves the data', parameters } }],
});

const nested = (levels: number, minItems: number): Record<string, unknown> =>
  levels === 0 ? { type: 'integer' } : { type: 'array', minItems, items: nested(levels - 1, minItems) };

const hostileBody = fc.oneof(
  fc
    .integer({ min: 129, max: 2 ** 31 })
    .map((n) => ({ model: 'svc-3.5-flash', messages: [{ role: 'user', content: 'hi' }], n })),
  fc
    .constantFrom('minLength', 'minItems', 'minProperties')
    .chain((keyword) => fc.integer({ min: 10_001, max: 3e8 }).map((value) => ({ keyword, value })))
    .map(({ keyword, value }) =>
      tool({
        type: 'object',
        properties: {
          s: {
            type: keyword === 'minLength' ? 'string' : keyword === 'minItems' ? 'array' : 'object',
            [keyword]: value,
          },
        },
        required: ['s'],
      }),
    ),
  fc
    .tuple(fc.integer({ min: 2, max: 4 }), fc.integer({ min: 50, max: 9_000 }))
    .map(([levels, min]) =>
      tool({ type: 'object', properties: { s: nested(levels, min) }, required: ['s'] }),
    ),
  fc
    .tuple(
      fc.constantFrom('^(a+)+$', '^(\\w*)*x$', '^((ab)*)+c$', '^(a|a)+$'),
      fc.integer({ min: 25, max: 40 }),
    )
    .map(([pattern, length]) =>
      tool(
        { type: 'object', properties: { s: { type: 'string', pattern } }, required: ['s'] },
        `Please call save_data with s ${'a'.repeat(length)}!`,
      ),
    ),
  fc
    .tuple(fc.constantFrom('1', '9', '12 ', 'a@', '3.'), fc.integer({ min: 10_000, max: 40_000 }))
    .map(([unit, count]) =>
      tool({ type: 'object', properties: { s: { type: 'string' } }, required: ['s'] }, unit.repeat(count)),
    ),
  // A `$ref` cycle with no leaf: every node requires the next one.
  fc.constant(
    tool({
      type: 'object',
      properties: { head: { $ref: '#/$defs/cell' } },
      required: ['head'],
      $defs: { cell: { type: 'object', properties: { next: { $ref: '#/$defs/cell' } }, required: ['next'] } },
    }),
  ),
);

describe('emulator under tiny hostile requests', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
  });
  afterAll(() => emu.close());

  it('should answer each with a 200 or a spec-shaped 400 and keep serving', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(hostileBody, async (body) => {
        const res = await callEmulator(emu.baseURL, emu.apiKey, 'POST', '/v1/chat/completions', body);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect([200, 400], res.text.slice(0, 300)).toContain(res.status);
        if (res.status === 400) {
          expect(res.json()).toMatchObject({ error: { type: 'request_params_invalid' } });
        }
      }),
      { numRuns: 60, seed: 4 },
    );
    const after = await callEmulator(emu.baseURL, emu.apiKey, 'POST', '/v1/chat/completions', {
      model: 'svc-3.5-flash',
      messages: [{ role: 'user', content: 'What is 2+2?' }],
    });
    expect(after.status).toBe(200);
    // Both kinds occurred: the bounds refuse, and the linear paths answer.
    expect(statuses.get(400)).toBeGreaterThan(0);
    expect(statuses.get(200)).toBeGreaterThan(0);
  });
});
