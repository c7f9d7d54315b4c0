import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatCompletion, ChatCompletionChunk } from '../../src/api/types/chat.js';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { callEmulator, sseData } from '../helpers/call-emulator.js';

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', description: 'City name, e.g. Paris' } },
      required: ['city'],
    },
  },
};

describe('emulator fidelity', () => {
  let emu: Emulator;
  const post = (path: string, body: unknown) => callEmulator(emu.baseURL, emu.apiKey, 'POST', path, body);
  const get = (path: string) => callEmulator(emu.baseURL, emu.apiKey, 'GET', path);

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
  });
  afterAll(() => emu.close());

  describe('when max_tokens is smaller than what the model would generate', () => {
    it('should bound the reasoning of a reasoning model too', async () => {
      const res = await post('/v1/chat/completions', {
        model: 'svc-3.7-flash',
        max_tokens: 3,
        messages: [{ role: 'user', content: 'Explain the tides in detail' }],
      });
      const body = res.json<ChatCompletion>();
      expect(body.usage?.completion_tokens).toBe(3);
      expect(body.choices[0]?.finish_reason).toBe('length');
      expect(body.choices[0]?.message.content).toBe('');
    });

    it('should cut tool arguments, counting them in usage, streamed or not', async () => {
      const request = {
        model: 'svc-1o-turbo-vision',
        max_tokens: 6,
        messages: [{ role: 'user', content: 'What is the weather in San Francisco?' }],
        tools: [weatherTool],
      };
      const plain = (await post('/v1/chat/completions', request)).json<ChatCompletion>();
      const args = plain.choices[0]?.message.tool_calls?.[0]?.function.arguments ?? '';
      expect(plain.usage?.completion_tokens).toBeLessThanOrEqual(6);
      expect(plain.choices[0]?.finish_reason).toBe('length');
      expect('{"city":"San Francisco"}'.startsWith(args)).toBe(true);
      expect(args.length).toBeLessThan('{"city":"San Francisco"}'.length);

      const streamed = await post('/v1/chat/completions', { ...request, stream: true });
      const chunks = sseData(streamed.text)
        .filter((d) => d !== '[DONE]')
        .map((d) => JSON.parse(d) as ChatCompletionChunk);
      const last = chunks.at(-1);
      expect(last?.usage?.completion_tokens).toBeLessThanOrEqual(6);
    });

    it('should leave answers that fit untouched', async () => {
      const res = await post('/v1/chat/completions', {
        model: 'svc-1o-turbo-vision',
        max_tokens: 200,
        messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
        tools: [weatherTool],
      });
      const body = res.json<ChatCompletion>();
      expect(body.choices[0]?.message.tool_calls?.[0]?.function.arguments).toBe('{"city":"Paris"}');
      expect(body.choices[0]?.finish_reason).not.toBe('length');
    });
  });

  describe('when an end-to-end audio model is asked without modalities', () => {
    it('should answer 400 naming modalities', async () => {
      const res = await post('/v1/chat/completions', {
        model: 'svc-audio-2',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({
        error: { type: 'request_params_invalid', message: expect.stringMatching(/^modalities: required/) },
      });
    });
  });

  describe('when a collection path ends with a slash', () => {
    it.each(['/v1/models/', '/v1/vector_stores/'])('should answer 404 for GET %s', async (path) => {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.json()).toMatchObject({ error: { type: 'not_found' } });
      expect((await get(path.slice(0, -1))).status).toBe(200);
    });
  });

  describe('when a list query is wrong', () => {
    it.each([
      ['/v1/vector_stores?limit=0', 'limit: must be an integer between 1 and 100'],
      ['/v1/audio/voices?limit=101', 'limit: must be an integer between 1 and 100'],
      ['/v1/vector_stores?order=newest', 'order: must be "asc" or "desc"'],
    ])('should word %s as the client does', async (path, message) => {
      const res = await get(path);
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({ error: { type: 'request_params_invalid', message } });
    });
  });
});
