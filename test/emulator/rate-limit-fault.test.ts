import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { callEmulator } from '../helpers/call-emulator.js';

const chatOf = (model: string, content = 'one two three') => ({
  model,
  messages: [{ role: 'user', content }],
});

describe('emulator rateLimit and model faults', () => {
  let emu: Emulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });
  const post = (body: unknown) =>
    callEmulator(emu!.baseURL, emu!.apiKey, 'POST', '/v1/chat/completions', body);

  describe('when a request budget per window is configured', () => {
    it('should admit the budget, then answer 429 with Retry-After and retry-after-ms', async () => {
      emu = await startEmulator({
        faults: [{ path: '/chat/completions', model: 'svc-3.5-flash', rateLimit: { requests: 3 } }],
      });
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await post(chatOf('svc-3.5-flash'))).status);
      expect(statuses).toEqual([200, 200, 200]);
      const limited = await post(chatOf('svc-3.5-flash'));
      expect(limited.status).toBe(429);
      expect(limited.json()).toMatchObject({ error: { type: 'rate_limit_exceeded' } });
      const waitMs = Number(limited.headers['retry-after-ms']);
      expect(waitMs).toBeGreaterThan(0);
      expect(waitMs).toBeLessThanOrEqual(60_000);
      expect(Number(limited.headers['retry-after'])).toBe(Math.ceil(waitMs / 1000));
      // Another model has its own budget: the fault names one model.
      expect((await post(chatOf('svc-3.7-flash'))).status).toBe(200);
    });
  });

  describe('when a token budget per window is configured', () => {
    it('should refuse a request whose prompt tokens do not fit', async () => {
      emu = await startEmulator({ faults: [{ path: '/chat/completions', rateLimit: { tokens: 40 } }] });
      expect((await post(chatOf('svc-3.5-flash', 'word '.repeat(20)))).status).toBe(200);
      expect((await post(chatOf('svc-3.5-flash', 'word '.repeat(20)))).status).toBe(429);
      expect((await post(chatOf('svc-3.5-flash', 'hi'))).status).toBe(200);
    });
  });

  describe('when a status fault names a model', () => {
    it('should fail only that model', async () => {
      emu = await startEmulator({ faults: [{ model: 'svc-3.5-flash-2603', status: 503 }] });
      expect((await post(chatOf('svc-3.5-flash-2603'))).status).toBe(503);
      expect((await post(chatOf('svc-3.5-flash'))).status).toBe(200);
    });
  });

  describe('when a rateLimit is not a positive budget', () => {
    it('should refuse it naming the field', async () => {
      emu = await startEmulator();
      const res = await callEmulator(emu.baseURL, '', 'POST', '/__emulator/faults', {
        faults: [{ rateLimit: { requests: -1 } }],
      });
      expect(res.status).toBe(400);
      expect(res.text).toContain('faults[0].rateLimit.requests');
      expect((await post(chatOf('svc-3.5-flash'))).status).toBe(200);
    });
  });
});
