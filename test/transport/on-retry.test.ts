import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcClient } from '../../src/api/svc-client.js';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import type { RetryInfo } from '../../src/transport/send-with-retry.js';

describe('onRetry request option', () => {
  let emu: Emulator;
  let client: SvcClient;
  beforeAll(async () => {
    emu = await startEmulator();
    client = new SvcClient({ baseURL: emu.baseURL, apiKey: emu.apiKey, maxRetries: 3 });
  });
  afterAll(async () => {
    await client.close();
    await emu.close();
  });

  describe('when a call fails twice with a retryable status', () => {
    it('should be told of each retry with the attempt number, the error and the wait', async () => {
      emu.setFaults([{ path: '/v1/models', status: 503, headers: { 'retry-after-ms': '5' }, times: 2 }]);
      const retries: RetryInfo[] = [];
      const page = await client.models.list({ onRetry: (retry) => retries.push(retry) });
      expect(page.data.length).toBeGreaterThan(0);
      expect(retries.map((r) => [r.attempt, r.error.status, r.delayMs])).toEqual([
        [2, 503, 5],
        [3, 503, 5],
      ]);
    });
  });

  describe('when a streamed chat call is retried', () => {
    it('should be told too', async () => {
      emu.setFaults([
        { path: '/v1/chat/completions', status: 429, headers: { 'retry-after-ms': '1' }, times: 1 },
      ]);
      const retries: RetryInfo[] = [];
      const stream = await client.chat.completions.create(
        { model: 'svc-3.5-flash', messages: [{ role: 'user', content: 'hi' }], stream: true },
        { onRetry: (retry) => retries.push(retry) },
      );
      await stream.finalCompletion();
      expect(retries).toHaveLength(1);
      expect(retries[0]?.error.status).toBe(429);
    });
  });
});
