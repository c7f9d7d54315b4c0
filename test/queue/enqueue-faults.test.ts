import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { RunState } from '../../src/agent/run-state.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { QueueUnavailableError } from '../../src/queue/queue-errors.js';
import type { RateLimits } from '../../src/queue/rate-limits.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { createProxiedNamespace, type ProxiedNamespace } from '../helpers/proxied-queue-backend.js';
import { queueBackends } from '../helpers/queue-backends.js';

const ENQUEUE_TIMEOUT_MS = 2_000;

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`enqueueing with the queue unreachable on ${backend.name}`, () => {
    let emu: Emulator;
    let client: SvcClient;
    let ns: ProxiedNamespace;
    let queue: RunQueue;
    let worker: RunWorker | undefined;
    const refunds: string[] = [];

    const start = async (
      options: { strandedRunCheckMs?: number; strandedAfterMs?: number; limits?: RateLimits } = {},
    ) => {
      const refund = defineTool({
        name: 'refund',
        description: 'Refunds an order.',
        parameters: z.object({}),
        needsApproval: true,
        execute: (_args, ctx) => {
          refunds.push(ctx.idempotencyKey);
          return 'refunded';
        },
      });
      worker = await startWorker({
        // The worker reaches the queue directly: only the producer's side is cut.
        connection: ns.direct.connection,
        store: ns.store,
        name: ns.queueName,
        agents: { support: new Agent({ client, model: 'svc-3.5-flash', tools: [refund] }) },
        handleSignals: false,
        ...options,
      });
    };
    const queueDown = (down: boolean) => {
      ns.queueProxy.setRefusing(down);
      if (down) ns.queueProxy.resetAll();
    };

    beforeEach(async () => {
      refunds.length = 0;
      emu = await startEmulator({ port: 0 });
      client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      ns = await createProxiedNamespace(backend);
      queue = new RunQueue({
        connection: ns.connection,
        store: ns.store,
        name: ns.queueName,
        enqueueTimeoutMs: ENQUEUE_TIMEOUT_MS,
      });
    });
    afterEach(async () => {
      queueDown(false);
      await worker?.close(true);
      worker = undefined;
      await queue.close();
      await ns.cleanup();
      await client.close();
      await emu.close();
    });

    it('should fail enqueue with a clear error in bounded time, and queue the run when enqueued again', async () => {
      await start();
      emu.script([{ message: { content: 'Hello there.' } }]);
      queueDown(true);
      const failure = await queue.enqueue('support', 'Hi', { runId: 'unqueued' }).catch((error) => error);
      expect(QueueUnavailableError.isInstance(failure)).toBe(true);
      expect(failure.message).toContain('"unqueued"');
      expect((await ns.direct.store.getRun('unqueued'))?.status).toBe('running');
      queueDown(false);
      await expect(queue.enqueue('support', 'Hi', { runId: 'unqueued' })).resolves.toBe('unqueued');
      const record = await queue.waitUntilFinished('unqueued', { timeout: 20_000 });
      expect(record).toMatchObject({ status: 'completed', text: 'Hello there.' });
    }, 60_000);

    it('should queue a chat turn (a session with history) when enqueued again with its run id (D5)', async () => {
      await start();
      await ns.store.addItems('chat-7', [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello.' },
      ]);
      emu.script([{ message: { content: 'Second answer.' } }]);
      queueDown(true);
      const options = { runId: 'turn-2', session: 'chat-7' };
      const failure = await queue.enqueue('support', 'And now?', options).catch((error) => error);
      expect(QueueUnavailableError.isInstance(failure)).toBe(true);
      queueDown(false);
      await expect(queue.enqueue('support', 'And now?', options)).resolves.toBe('turn-2');
      expect(await queue.waitUntilFinished('turn-2', { timeout: 20_000 })).toMatchObject({
        status: 'completed',
        text: 'Second answer.',
      });
      // Another input, or the same input for another session, is still not the same request.
      await expect(queue.enqueue('support', 'Other', options)).rejects.toMatchObject({
        name: 'RunConflictError',
      });
      await expect(
        queue.enqueue('support', 'And now?', { runId: 'turn-2', session: 'chat-8' }),
      ).rejects.toMatchObject({ name: 'RunConflictError' });
    }, 60_000);

    it('should refuse enqueueing an id already stored for other input', async () => {
      await start();
      emu.script([{ message: { content: 'Hello there.' } }]);
      await queue.enqueue('support', 'Hi', { runId: 'taken' });
      await expect(queue.enqueue('support', 'Something else', { runId: 'taken' })).rejects.toMatchObject({
        name: 'RunConflictError',
      });
    }, 30_000);

    it('should queue an approved run again when approve is repeated after the queue was unreachable', async () => {
      await start();
      emu.script([
        {
          message: { content: '', tool_calls: [{ id: 'c1', function: { name: 'refund', arguments: '{}' } }] },
        },
        { message: { content: 'Refund done.' } },
      ]);
      await queue.enqueue('support', 'Refund order 42', { runId: 'approved' });
      expect((await queue.waitUntilFinished('approved', { timeout: 20_000 })).status).toBe('interrupted');
      queueDown(true);
      const failure = await queue.approve('approved', 'c1').catch((error) => error);
      expect(QueueUnavailableError.isInstance(failure)).toBe(true);
      queueDown(false);
      await queue.approve('approved', 'c1');
      const record = await queue.waitUntilFinished('approved', { timeout: 20_000 });
      expect(record).toMatchObject({ status: 'completed', text: 'Refund done.' });
      expect(refunds).toEqual(['approved:0:c1']);
    }, 60_000);

    it('should keep the tenant of a run continued after its approval (D12)', async () => {
      await start({ limits: { models: { 'svc-3.5-flash': { requests: 100_000 } } } });
      emu.script([
        {
          message: { content: '', tool_calls: [{ id: 'c1', function: { name: 'refund', arguments: '{}' } }] },
        },
        { message: { content: 'Refund done.' } },
      ]);
      await queue.enqueue('support', 'Refund order 42', { runId: 'tenant-run', tenant: 'acme' });
      expect((await queue.waitUntilFinished('tenant-run', { timeout: 20_000 })).status).toBe('interrupted');
      await queue.approve('tenant-run', 'c1');
      const finished = await queue.waitUntilFinished('tenant-run', { timeout: 20_000 });
      expect(finished.status).toBe('completed');
      // The record names the tenant through every write (the run inspector lists runs by it).
      expect(finished.tenant).toBe('acme');
      // Both model requests are counted for the tenant: the continued run's job still names it.
      const { rows } = await queue.stats();
      expect(rows.map(({ tenant, requests }) => ({ tenant, requests }))).toEqual([
        { tenant: 'acme', requests: 2 },
      ]);
    }, 60_000);

    it("should keep a continuation's event log when the stranded-run check queues it (D7)", async () => {
      await start();
      emu.script([
        {
          message: { content: '', tool_calls: [{ id: 'c1', function: { name: 'refund', arguments: '{}' } }] },
        },
      ]);
      await queue.enqueue('support', 'Refund order 42', { runId: 'paused' });
      expect((await queue.waitUntilFinished('paused', { timeout: 20_000 })).status).toBe('interrupted');
      // No worker takes the continuation while this test looks at its job.
      await worker!.close();
      worker = undefined;
      queueDown(true);
      const decisions = [{ toolCallId: 'c1', approved: true }];
      const failure = await queue.decide('paused', decisions, { eventLogId: 'paused~1' }).catch((e) => e);
      expect(QueueUnavailableError.isInstance(failure)).toBe(true);
      queueDown(false);
      expect(await queue.requeueStranded({ olderThanMs: 0 })).toEqual(['paused']);
      // The continuation is found by its own id: its queued job still names its event log.
      const stopped = await queue.stop('paused~1', 'changed my mind');
      expect(stopped.status).toBe('failed');
      expect(stopped.error).toContain('RunStoppedError');
      expect((await ns.direct.store.readRunEvents!('paused~1')).map((event) => event.data)).toEqual([
        expect.stringContaining('"type":"abort"'),
      ]);
    }, 60_000);

    it("should have the workers' stranded-run check queue a stored run that has no job", async () => {
      emu.script([{ message: { content: 'Found you.' } }]);
      // A producer that crashed between storing the run and queueing it.
      await ns.direct.store.createRun({
        id: 'stranded',
        agentName: 'support',
        status: 'running',
        state: new RunState({ messages: [{ role: 'user', content: 'Hi' }] }).toJSON() as never,
        interruptions: [],
      });
      await start({ strandedRunCheckMs: 200, strandedAfterMs: 0 });
      const record = await queue.waitUntilFinished('stranded', { timeout: 20_000 });
      expect(record).toMatchObject({ status: 'completed', text: 'Found you.' });
    }, 30_000);
  });
}
