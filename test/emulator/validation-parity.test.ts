import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/api/errors.js';
import { SvcClient } from '../../src/api/svc-client.js';
import type { ChatCompletionCreateParams } from '../../src/api/types/chat.js';
import { BadRequestError } from '../../src/core/errors.js';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';

const invalid: Array<[string, unknown, 'default' | 'plan']> = [
  ['no messages', { model: 'svc-3.5-flash', messages: [] }, 'default'],
  ['tool without id', { model: 'svc-3.5-flash', messages: [{ role: 'tool', content: 'x' }] }, 'default'],
  [
    'json_schema on a model without it',
    {
      model: 'svc-3.7-flash',
      messages: [{ role: 'user', content: 'x' }],
      response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object' } } },
    },
    'default',
  ],
  [
    'bad function name',
    {
      model: 'svc-3.5-flash',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'has space', parameters: { type: 'object' } } }],
    },
    'default',
  ],
  ['plan model on /v1', { model: 'svc-router-v1', messages: [{ role: 'user', content: 'x' }] }, 'default'],
  [
    'image on the plan channel',
    {
      model: 'svc-router-v1',
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://e.com/a.png' } }] },
      ],
    },
    'plan',
  ],
];

describe('emulator validation parity with the client', () => {
  let emu: Emulator;
  let checking: SvcClient;
  let raw: SvcClient;

  beforeAll(async () => {
    emu = await startEmulator();
    checking = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
    raw = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0, validate: false });
  });
  afterAll(async () => {
    await checking.close();
    await raw.close();
    await emu.close();
  });

  describe('when a request breaks a rule', () => {
    it.each(invalid)(
      'should refuse it with the same rules on both sides (%s)',
      async (_name, params, channel) => {
        const chat = (client: SvcClient) =>
          (channel === 'plan' ? client.plan.chat.completions : client.chat.completions).create(
            params as ChatCompletionCreateParams,
          );
        const local = await chat(checking).catch((e: unknown) => e);
        expect(local).toBeInstanceOf(RequestValidationError);
        const before = emu.requests().length;
        const remote = await chat(raw).catch((e: unknown) => e);
        expect(emu.requests().length).toBe(before + 1);
        expect(remote).toBeInstanceOf(BadRequestError);
        const localError = local as RequestValidationError;
        expect(remote).toMatchObject({ status: 400, type: localError.code });
        expect((remote as Error).message).toContain(localError.message.split('\n').join('; '));
      },
    );
  });
});
