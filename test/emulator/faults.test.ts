import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { callEmulator, sseData } from '../helpers/call-emulator.js';

const chat = { model: 'svc-3.7-flash', messages: [{ role: 'user', content: 'one two three four five six' }] };

describe('emulator faults', () => {
  let emu: Emulator;
  const post = (body: unknown, headers?: Record<string, string>) =>
    callEmulator(emu.baseURL, emu.apiKey, 'POST', '/v1/chat/completions', body, headers);

  beforeAll(async () => {
    emu = await startEmulator({ faults: [{ path: '/v1/models', method: 'GET', status: 429, times: 1 }] });
  });
  afterAll(() => emu.close());

  describe('when faults are given to startEmulator', () => {
    it('should hit only matching requests, as many times as asked', async () => {
      const first = await callEmulator(emu.baseURL, emu.apiKey, 'GET', '/v1/models');
      expect(first.status).toBe(429);
      expect(first.json()).toEqual({
        error: { message: 'Emulated fault', type: 'rate_limit_exceeded', code: 'rate_limit_exceeded' },
      });
      expect((await callEmulator(emu.baseURL, emu.apiKey, 'GET', '/v1/models')).status).toBe(200);
    });

    it('should be replaceable at run time, also over HTTP', async () => {
      const set = await callEmulator(emu.baseURL, '', 'POST', '/__emulator/faults', {
        faults: [{ status: 500, times: 1 }],
      });
      expect(set.status).toBe(200);
      expect((await callEmulator(emu.baseURL, emu.apiKey, 'GET', '/v1/files')).status).toBe(500);
      expect((await callEmulator(emu.baseURL, emu.apiKey, 'GET', '/v1/files')).status).toBe(200);
    });
  });

  describe('when the x-emulator-fault header asks for a status', () => {
    it('should answer it with body and Retry-After (compact syntax)', async () => {
      const res = await post(chat, { 'x-emulator-fault': 'status=503;retry-after=2;message=Overloaded' });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.json()).toEqual({
        error: { message: 'Overloaded', type: 'service_unavailable', code: 'service_unavailable' },
      });
      expect(res.headers['x-trace-id']).toMatch(/^trace-/);
    });

    it('should accept JSON and wear off after `times` for the same header value', async () => {
      const header = JSON.stringify({
        status: 429,
        times: 2,
        body: { error: { message: 'slow', type: 'rate_limit' } },
      });
      expect((await post(chat, { 'x-emulator-fault': header })).status).toBe(429);
      expect((await post(chat, { 'x-emulator-fault': header })).status).toBe(429);
      expect((await post(chat, { 'x-emulator-fault': header })).status).toBe(200);
    });

    it('should refuse an unknown key', async () => {
      const res = await post(chat, { 'x-emulator-fault': 'explode=1' });
      expect(res.status).toBe(400);
      expect(res.text).toContain('x-emulator-fault');
    });
  });

  describe('when latency is added', () => {
    it('should delay the answer', async () => {
      const started = Date.now();
      const res = await post(chat, { 'x-emulator-fault': 'latency=150' });
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    });
  });

  describe('when a stream is cut after N bytes', () => {
    it('should deliver exactly N bytes then break the connection', async () => {
      const res = await request(`${emu.baseURL}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${emu.apiKey}`,
          'content-type': 'application/json',
          'x-emulator-fault': 'cut=300',
        },
        body: JSON.stringify({ ...chat, stream: true }),
      });
      expect(res.statusCode).toBe(200);
      let received = 0;
      await expect(
        (async () => {
          for await (const piece of res.body) received += (piece as Buffer).length;
        })(),
      ).rejects.toThrow();
      expect(received).toBe(300);
    });
  });

  describe('when a malformed chunk is asked for', () => {
    it('should send one event that is not valid JSON, the rest intact', async () => {
      const res = await post({ ...chat, stream: true }, { 'x-emulator-fault': 'malformed' });
      const events = sseData(res.text);
      const broken = events.filter((e) => {
        if (e === '[DONE]') return false;
        try {
          JSON.parse(e);
          return false;
        } catch {
          return true;
        }
      });
      expect(broken).toHaveLength(1);
      expect(events.at(-1)).toBe('[DONE]');
    });
  });

  describe('when a slow drip is asked for', () => {
    it('should space the events', async () => {
      const res = await request(`${emu.baseURL}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${emu.apiKey}`,
          'content-type': 'application/json',
          'x-emulator-fault': JSON.stringify({ dripMs: 40 }),
        },
        body: JSON.stringify({ ...chat, stream: true }),
      });
      const arrivals: number[] = [];
      for await (const _ of res.body) arrivals.push(Date.now());
      expect(arrivals.length).toBeGreaterThan(3);
      expect((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(100);
    });
  });

  describe('when the key is missing or wrong', () => {
    it('should answer the exact 401 body', async () => {
      for (const key of ['', 'sk-wrong']) {
        const res = await callEmulator(emu.baseURL, key, 'GET', '/v1/models');
        expect(res.status).toBe(401);
        expect(res.text).toBe(
          '{"error":{"message":"Incorrect API key provided","type":"invalid_api_key","code":"invalid_api_key"}}',
        );
      }
    });

    it('should accept x-api-key only on the Messages endpoints', async () => {
      const messages = await callEmulator(emu.baseURL, '', 'POST', '/v1/messages/count_tokens', chat, {
        'x-api-key': emu.apiKey,
      });
      expect(messages.status).toBe(200);
      const models = await callEmulator(emu.baseURL, '', 'GET', '/v1/models', undefined, {
        'x-api-key': emu.apiKey,
      });
      expect(models.status).toBe(401);
    });
  });

  describe('when the path is unknown', () => {
    it('should answer 404 not_found in the service shape', async () => {
      const res = await callEmulator(emu.baseURL, emu.apiKey, 'GET', '/v1/nothing');
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({
        error: { message: 'Unknown request URL: GET /v1/nothing', type: 'not_found', code: 'not_found' },
      });
    });
  });
});
