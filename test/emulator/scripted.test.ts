import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatCompletion, ChatCompletionChunk } from '../../src/api/types/chat.js';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { callEmulator, sseData } from '../helpers/call-emulator.js';

const chat = { model: 'svc-3.7-flash', messages: [{ role: 'user', content: 'hi' }] };

describe('emulator scripted mode', () => {
  let emu: Emulator;
  const post = (body: unknown) => callEmulator(emu.baseURL, emu.apiKey, 'POST', '/v1/chat/completions', body);

  beforeAll(async () => {
    emu = await startEmulator();
  });
  beforeEach(() => emu.reset());
  afterAll(() => emu.close());

  describe('when a message answer is queued', () => {
    it('should render it as a completion, then fall back to the default model', async () => {
      emu.script([
        {
          message: {
            content: 'Scripted!',
            tool_calls: [{ function: { name: 'lookup', arguments: { q: 1 } } }],
          },
        },
      ]);
      const first = (await post(chat)).json<ChatCompletion>();
      expect(first.choices[0]?.message.content).toBe('Scripted!');
      expect(first.choices[0]?.message.tool_calls?.[0]?.function).toEqual({
        name: 'lookup',
        arguments: '{"q":1}',
      });
      const second = (await post(chat)).json<ChatCompletion>();
      expect(second.choices[0]?.message.content).toBe('Hello! What can I do for you?');
    });

    it('should render it as an observed-shape stream for a streamed request', async () => {
      emu.script([{ message: { content: 'alpha beta gamma delta' }, finish_reason: 'length' }]);
      const chunks = sseData((await post({ ...chat, stream: true })).text)
        .filter((d) => d !== '[DONE]')
        .map((d) => JSON.parse(d) as ChatCompletionChunk);
      expect(chunks[0]?.created).toBe(0);
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('alpha beta gamma delta');
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('length');
    });
  });

  describe('when chunks are queued', () => {
    it('should send them verbatim, then [DONE]', async () => {
      const chunks = [
        { id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {} }] },
        'not json',
      ];
      const script = await callEmulator(emu.baseURL, '', 'POST', '/__emulator/script', {
        answers: [{ chunks }],
      });
      expect(script.json()).toEqual({ queued: 1 });
      expect(sseData((await post({ ...chat, stream: true })).text)).toEqual([
        JSON.stringify(chunks[0]),
        'not json',
        '[DONE]',
      ]);
    });
  });

  describe('when a completion is queued', () => {
    it('should merge it over a default completion', async () => {
      emu.script([{ completion: { id: 'fixed', message: { content: 'from script' } } }]);
      const res = (await post(chat)).json<ChatCompletion>();
      expect(res).toMatchObject({
        id: 'fixed',
        object: 'chat.completion',
        choices: [{ message: { content: 'from script' } }],
      });
    });
  });

  describe('when an error or a fault is queued', () => {
    it('should answer the status and headers, then the fault', async () => {
      emu.script([{ error: { status: 429, headers: { 'retry-after': '1' } } }, { fault: { status: 502 } }]);
      const limited = await post(chat);
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBe('1');
      expect(limited.json()).toMatchObject({ error: { type: 'rate_limit_exceeded' } });
      expect((await post(chat)).status).toBe(502);
    });
  });

  describe('when the script is invalid', () => {
    it('should refuse it naming the answer', async () => {
      const res = await callEmulator(emu.baseURL, '', 'POST', '/__emulator/script', [
        { message: {} },
        { nope: 1 },
      ]);
      expect(res.status).toBe(400);
      expect(res.text).toContain('answers[1]');
      expect(() => emu.script([{ error: { status: 200 } }])).toThrow(/answers\[0\]\.error\.status/);
    });
  });

  describe('when the emulator object is logged', () => {
    it('should keep the key out of JSON and util.inspect, yet readable', async () => {
      const { inspect } = await import('node:util');
      const keyed = await startEmulator({ apiKey: 'sk-secret-emulator-key' });
      try {
        expect(keyed.apiKey).toBe('sk-secret-emulator-key');
        expect(JSON.stringify(keyed)).not.toContain('sk-secret');
        expect(inspect(keyed)).not.toContain('sk-secret');
      } finally {
        await keyed.close();
      }
    });
  });

  describe('when requests are recorded', () => {
    it('should list them without the key, over HTTP too', async () => {
      await post(chat);
      const [recorded] = emu.requests();
      expect(recorded).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: chat });
      expect(JSON.stringify(emu.requests())).not.toContain(emu.apiKey);
      const overHttp = await callEmulator(emu.baseURL, '', 'GET', '/__emulator/requests');
      expect(overHttp.json<{ data: unknown[] }>().data).toHaveLength(1);
      await callEmulator(emu.baseURL, '', 'POST', '/__emulator/reset');
      expect(emu.requests()).toHaveLength(0);
    });
  });
});
