import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextWindowOf, defaultContextWindows } from '../../src/api/context-windows.js';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { BadRequestError, SvcClient } from '../../src/index.js';
import { callEmulator } from '../helpers/call-emulator.js';

describe('emulator context length and prompt cache', () => {
  let emu: Emulator;
  const post = (body: unknown) => callEmulator(emu.baseURL, emu.apiKey, 'POST', '/v1/chat/completions', body);
  const long = (words: number) => Array.from({ length: words }, (_, i) => `word${i}`).join(' ');

  beforeAll(async () => {
    emu = await startEmulator({ model: { contextWindows: { 'svc-3.7-flash': 300 } } });
  });
  afterAll(() => emu.close());

  describe('when the input is over the context length', () => {
    it('should answer 400 saying the input is too long, with the figures', async () => {
      expect(defaultContextWindows['svc-1-8k']).toBe(8192);
      const res = await post({ model: 'svc-1-8k', messages: [{ role: 'user', content: long(5000) }] });
      expect(res.status).toBe(400);
      const { error } = res.json<{ error: { message: string; type: string } }>();
      expect(error.type).toBe('request_params_invalid');
      expect(error.message).toMatch(
        /^Input too long: the messages take \d+ tokens, over the context length of svc-1-8k \(8192 tokens\)/,
      );
    });

    it('should count max_tokens against the window', async () => {
      const messages = [{ role: 'user', content: 'hello' }];
      expect((await post({ model: 'svc-3.7-flash', messages, max_tokens: 200 })).status).toBe(200);
      const res = await post({ model: 'svc-3.7-flash', messages, max_tokens: 299 });
      expect(res.status).toBe(400);
      expect(res.text).toContain('plus max_tokens 299');
    });

    it('should surface as a BadRequestError through the client, streamed too', async () => {
      const client = new SvcClient({ baseURL: emu.baseURL, apiKey: emu.apiKey, maxRetries: 0 });
      const body = { model: 'svc-3.7-flash', messages: [{ role: 'user' as const, content: long(400) }] };
      await expect(client.chat.completions.create(body)).rejects.toBeInstanceOf(BadRequestError);
      await expect(client.chat.completions.create({ ...body, stream: true })).rejects.toThrow(
        /Input too long/,
      );
    });
  });

  describe('when a prompt repeats an earlier prefix', () => {
    it('should report the repeated tokens as usage.cached_tokens', async () => {
      const system = { role: 'system', content: `You are a careful assistant. ${long(200)}` };
      const first = await post({
        model: 'svc-3.5-flash',
        messages: [system, { role: 'user', content: 'Hi' }],
      });
      const firstUsage = first.json<{ usage: Record<string, number> }>().usage;
      expect(firstUsage.cached_tokens).toBeUndefined();
      const systemOnly = await callEmulator(emu.baseURL, emu.apiKey, 'POST', '/v1/token/count', {
        model: 'svc-3.5-flash',
        messages: [system],
      });
      const second = await post({
        model: 'svc-3.5-flash',
        messages: [system, { role: 'user', content: 'Something else' }],
      });
      const usage = second.json<{ usage: Record<string, number> }>().usage;
      expect(usage.cached_tokens).toBe(
        systemOnly.json<{ data: { total_tokens: number } }>().data.total_tokens,
      );
      expect(usage.cached_tokens).toBeLessThan(usage.prompt_tokens as number);
    });

    it('should report it on streamed usage and not across models', async () => {
      const messages = [{ role: 'user', content: `Tell me ${long(50)}` }];
      await post({ model: 'svc-3.5-flash', messages });
      const other = await post({ model: 'svc-3.7-flash', messages });
      expect(other.json<{ usage: Record<string, number> }>().usage.cached_tokens).toBeUndefined();
      const stream = await post({ model: 'svc-3.5-flash', messages, stream: true });
      const usages = stream.text
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => (JSON.parse(line.slice(6)) as { usage?: Record<string, number> }).usage)
        .filter((u) => u && (u.prompt_tokens ?? 0) > 0);
      expect(usages.length).toBeGreaterThan(0);
      for (const u of usages) expect(u?.cached_tokens).toBe(u?.prompt_tokens);
    });
  });
});

describe('the context-window table', () => {
  it('should let the plan model take its largest max_tokens with a prompt', () => {
    expect(contextWindowOf('svc-router-v1')).toBeGreaterThan(384 * 1024);
    expect(contextWindowOf('svc-1v-8k')).toBe(8192);
    expect(contextWindowOf('a-model-of-tomorrow')).toBe(8192);
    expect(contextWindowOf('svc-1-8k', { 'svc-1-8k': 4096 })).toBe(4096);
  });
});
