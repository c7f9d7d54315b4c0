import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { fairPriority, MAX_TENANT_PRIORITY } from '../../src/queue/fair-priority.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { eventually } from '../helpers/eventually.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';

const BACKLOG = 500;
const CONCURRENCY = 2;

describe('fairPriority', () => {
  it('should rank a tenant first run ahead of the deep backlog of another, within its priority level', () => {
    expect(fairPriority(undefined, 1)).toBeLessThan(fairPriority(undefined, 500));
    expect(fairPriority(1, 5_000)).toBeLessThan(fairPriority(2, 1));
    expect(fairPriority(MAX_TENANT_PRIORITY, 10_000)).toBe(2_097_152);
  });

  it('should refuse a priority beyond what tenants leave, naming the field', () => {
    expect(() => fairPriority(MAX_TENANT_PRIORITY + 1, 1)).toThrow(
      /priority: must be an integer from 1 to 2048/,
    );
  });
});

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`fair scheduling on ${backend.name}`, () => {
    let emu: Emulator;
    let ns: QueueNamespace;
    let queue: RunQueue;
    let worker: RunWorker | undefined;
    let client: SvcClient;
    beforeAll(async () => {
      emu = await startEmulator();
      client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
    });
    afterAll(async () => {
      await client?.close();
      await emu?.close();
    });
    const open = () => {
      ns = backend.create();
      queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
    };
    const start = async () => {
      worker = await startWorker({
        connection: ns.connection,
        store: ns.store,
        agents: { short: new Agent({ client, model: 'svc-3.5-flash' }) },
        name: ns.queueName,
        concurrency: CONCURRENCY,
        handleSignals: false,
      });
    };
    const close = async () => {
      // Not forced: a run still starting would count its tenant's backlog again after the cleanup.
      await worker?.close();
      await queue.close();
      await ns.cleanup();
    };
    /** Where the first request of the run with this input came, among all model requests so far. */
    const positionOf = (input: string) =>
      emu
        .requests()
        .filter((request) => request.path === '/v1/chat/completions')
        .findIndex((request) => JSON.stringify(request.body).includes(input));

    it('should start a tenant single run after another tenant 500 runs within a bound free of that backlog', async () => {
      open();
      emu.reset();
      try {
        for (let i = 0; i < BACKLOG; i += 50) {
          await Promise.all(
            Array.from({ length: 50 }, (_, j) => queue.enqueue('short', `Batch ${i + j}`, { tenant: 'a' })),
          );
        }
        const single = await queue.enqueue('short', 'Only run of b', { tenant: 'b' });
        await start();
        await eventually(async () => (await queue.get(single))?.status === 'completed', 60_000);
        // Ahead of it at most one run per tenant (rank 1) and the runs the worker held at once.
        expect(positionOf('Only run of b')).toBeGreaterThanOrEqual(0);
        expect(positionOf('Only run of b')).toBeLessThan(2 + CONCURRENCY);
      } finally {
        await close();
      }
    }, 120_000);

    it('should start an interactive run (priority 1) before queued batch work (priority 5)', async () => {
      open();
      emu.reset();
      try {
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            queue.enqueue('short', `Batch job ${i}`, { tenant: 'a', priority: 5 }),
          ),
        );
        const interactive = await queue.enqueue('short', 'Interactive question', {
          tenant: 'a',
          priority: 1,
        });
        await start();
        await eventually(async () => (await queue.get(interactive))?.status === 'completed', 60_000);
        expect(positionOf('Interactive question')).toBeLessThan(1 + CONCURRENCY);
      } finally {
        await close();
      }
    }, 60_000);
  });
}
