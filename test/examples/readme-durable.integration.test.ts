/**
 * The README's "Durable runs" section, run for real. Each `// #region name` is copied verbatim into
 * README.md, and test/examples/readme.test.ts fails when the two drift apart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { Agent, defineTool, SvcClient } from '../../src/index.js';
import { RunQueue, startWorker } from '../../src/queue/index.js';
import { fileStore, redisStore } from '../../src/stores/index.js';
import { REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';

const redisUp = await serviceAvailable('redis');

describe('README durable runs', () => {
  let service: Emulator;
  let client: SvcClient;
  let dir: string;
  const refunds: string[] = [];
  // Stands in for a payment API that deduplicates by key.
  const payments = {
    refund: async (_orderId: number, options: { idempotencyKey: string }) =>
      refunds.push(options.idempotencyKey),
  };

  beforeAll(async () => {
    service = await startEmulator({ port: 0 });
    client = new SvcClient({ apiKey: service.apiKey, baseURL: service.baseURL });
    dir = await mkdtemp(join(tmpdir(), 'svc-readme-durable-'));
  });
  afterAll(async () => {
    await client.close();
    await service.close();
    await rm(dir, { recursive: true, force: true });
  });

  function createAgent() {
    const runsDir = dir;
    // #region durable-run
    const refundOrder = defineTool({
      name: 'refund_order',
      description: 'Refund an order.',
      parameters: z.object({ orderId: z.number().int() }),
      needsApproval: true,
      // Stable across retries and resumes of this call, unique across runs: let your systems deduplicate.
      execute: async ({ orderId }, ctx) => payments.refund(orderId, { idempotencyKey: ctx.idempotencyKey }),
    });
    const support = new Agent({
      client,
      model: 'svc-3.5-flash',
      tools: [refundOrder],
      store: fileStore({ dir: runsDir }), // or memoryStore(), redisStore({ url }), postgresStore({ connectionString })
    });
    // #endregion
    return { support, store: fileStore({ dir }) };
  }

  it('should pause a stored run, approve it from anywhere and continue the session', async () => {
    const { support, store } = createAgent();
    // #region durable-approve
    const first = await support.run('Refund order 1001, it arrived broken.', { session: 'customer-7' });
    // ... the process may stop here; any process with the same store continues:
    const [call] = first.interruptions;
    const done = await support.approve(first.runId, call!.toolCallId); // or support.reject(runId, id, why)
    const next = await support.run('Thanks! Is it on its way back?', { session: 'customer-7' }); // history prepended
    // #endregion
    expect(done.status).toBe('completed');
    expect(refunds).toEqual([`${first.runId}:0:${call!.toolCallId}`]);
    expect(next.messages.length).toBeGreaterThan(4);
    expect((await store.getItems('customer-7')).length).toBe(next.messages.length);
  });

  it.skipIf(!redisUp)('should run queued runs on a worker', async () => {
    const prefix = `${uniqueNamespace('readme')}:`;
    const store = redisStore({ url: REDIS_URL, prefix });
    const support = new Agent({ client, model: 'svc-3.5-flash' });
    const connection = REDIS_URL;
    const name = prefix.slice(0, -1);
    // #region run-queue
    // In each worker process:
    const worker = await startWorker({ connection, store, agents: { support }, concurrency: 8, name });
    // Anywhere else:
    const queue = new RunQueue({ connection, store, name }); // connection: 'redis://...' or { postgres: url }
    const runId = await queue.enqueue('support', 'Where is my order?', { session: 'customer-7' });
    for await (const event of queue.events(runId))
      if (event.type === 'text-delta') process.stdout.write(event.text);
    const record = await queue.waitUntilFinished(runId); // completed, failed, or interrupted (approve with queue.approve)
    // #endregion
    expect(record.status).toBe('completed');
    await queue.close();
    await worker.close();
    await store.close?.();
    const redis = new Redis(REDIS_URL);
    const keys = [...(await redis.keys(`${prefix}*`)), ...(await redis.keys(`svc-agents:${name}*`))];
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
});
