import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcClient } from '../../src/api/svc-client.js';
import {
  APIConnectionError,
  APITimeoutError,
  InternalServerError,
  RateLimitError,
  SvcError,
} from '../../src/core/errors.js';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';

const params = {
  model: 'svc-3.7-flash',
  messages: [{ role: 'user' as const, content: 'one two three four five six' }],
};

describe('emulator faults seen through SvcClient', () => {
  let emu: Emulator;
  let client: SvcClient;
  const fault = (value: string) => ({ headers: { 'x-emulator-fault': value } });

  beforeAll(async () => {
    emu = await startEmulator();
    client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
  });
  afterAll(async () => {
    await client.close();
    await emu.close();
  });

  describe('when a status is injected', () => {
    it('should throw the typed error for 429 and 503 with the trace id', async () => {
      await expect(
        client.chat.completions.create(params, fault('status=429;retry-after=1')),
      ).rejects.toBeInstanceOf(RateLimitError);
      const error = await client.models.list(fault('status=503')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InternalServerError);
      expect(error).toMatchObject({
        status: 503,
        type: 'service_unavailable',
        requestId: expect.stringMatching(/^trace-/),
      });
    });
  });

  describe('when latency exceeds the timeout', () => {
    it('should throw APITimeoutError', async () => {
      await expect(
        client.chat.completions.create(params, { ...fault('latency=500'), timeout: 100 }),
      ).rejects.toBeInstanceOf(APITimeoutError);
    });
  });

  describe('when a stream is cut', () => {
    it('should fail the stream with a connection error, never a silent partial answer', async () => {
      const stream = await client.chat.completions.create({ ...params, stream: true }, fault('cut=400'));
      const error = await stream.finalCompletion().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIConnectionError);
    });

    it('should fail a cut JSON body too', async () => {
      await expect(client.chat.completions.create(params, fault('cut=30'))).rejects.toBeInstanceOf(SvcError);
    });
  });

  describe('when a stream carries a malformed chunk', () => {
    it('should fail naming the bad event', async () => {
      const stream = await client.chat.completions.create({ ...params, stream: true }, fault('malformed'));
      await expect(stream.finalCompletion()).rejects.toThrow(/not JSON/);
    });
  });

  describe('when the stream drips slowly', () => {
    it('should still assemble the whole answer', async () => {
      const stream = await client.chat.completions.create({ ...params, stream: true }, fault('drip=10'));
      const final = await stream.finalCompletion();
      const whole = await client.chat.completions.create(params);
      expect(final.choices[0]?.message.content).toBe(whole.choices[0]?.message.content);
      expect(final.choices[0]?.message.content?.length).toBeGreaterThan(100);
    });
  });
});
