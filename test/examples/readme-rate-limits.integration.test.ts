/**
 * The README's "Rate limits, fair scheduling and model fallback" section, run for real. Each
 * `// #region name` is copied verbatim into README.md, and test/examples/readme.test.ts fails when the two
 * drift apart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { Agent, type AgentStep, SvcClient } from '../../src/index.js';
import { RunQueue, startWorker } from '../../src/queue/index.js';
import { redisStore } from '../../src/stores/index.js';
import { REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';
import { dropRedisKeys } from '../helpers/queue-backends.js';

const redisUp = await serviceAvailable('redis');

describe('README rate limits and model fallback', () => {
  let service: Emulator;
  let client: SvcClient;
  beforeAll(async () => {
    // The preferred model is overloaded: turns move to the fallback.
    service = await startEmulator({ port: 0, faults: [{ model: 'svc-3.5-flash-2603', status: 503 }] });
    client = new SvcClient({ apiKey: service.apiKey, baseURL: service.baseURL, maxRetries: 0 });
  });
  afterAll(async () => {
    await client.close();
    await service.close();
  });

  it.skipIf(!redisUp)(
    'should run tenants runs under shared limits, falling back to another model',
    async () => {
      const prefix = `${uniqueNamespace('readme')}:`;
      const store = redisStore({ url: REDIS_URL, prefix });
      const connection = REDIS_URL;
      const name = prefix.slice(0, -1);
      // #region rate-limits
      const support = new Agent({ client, model: ['svc-3.5-flash-2603', 'svc-3.7-flash'] }); // or fallbackModels
      // In each worker process: budgets per model and for the account, shared by every worker of the queue.
      const limits = {
        models: { 'svc-3.5-flash-2603': { requests: 600, tokens: 200_000 }, '*': { requests: 300 } },
        account: { requests: 1_000 },
      };
      const worker = await startWorker({ connection, store, agents: { support }, name, limits });
      // Anywhere else: tenants share the workers round-robin; priority 1 goes before batch work.
      const queue = new RunQueue({ connection, store, name });
      const runId = await queue.enqueue('support', 'Where is my order?', { tenant: 'acme', priority: 1 });
      const record = await queue.waitUntilFinished(runId); // a step a fallback model answered has `step.fallback`
      const { rows } = await queue.stats(); // per model and tenant: requests, tokens, waits, rateLimited, fallbacks
      // #endregion
      expect(record.status).toBe('completed');
      expect((record.state as { steps: AgentStep[] }).steps[0]?.fallback).toEqual({
        model: 'svc-3.7-flash',
        failed: [{ model: 'svc-3.5-flash-2603', reason: 'status 503' }],
      });
      // The window may have turned between the run and the read: then it is empty, never wrong.
      for (const row of rows) expect(row.tenant).toBe('acme');
      await queue.close();
      await worker.close();
      await store.close?.();
      await dropRedisKeys(`${prefix}*`, `svc-agents:${name}*`);
    },
  );
});
