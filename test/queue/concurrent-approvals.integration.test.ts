import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';

const RUNS = 10;
/** A turn asking for two calls that each wait for a human. */
const twoApprovals = {
  message: {
    content: '',
    tool_calls: ['a', 'b'].map((id) => ({ id, function: { name: 'refund', arguments: '{}' } })),
  },
};

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`approvals of one run's calls at once on ${backend.name}`, () => {
    let emu: Emulator;
    let client: SvcClient;
    let ns: QueueNamespace;
    let queue: RunQueue;
    let worker: RunWorker;
    const refunds: string[] = [];

    beforeEach(async () => {
      refunds.length = 0;
      emu = await startEmulator({ port: 0 });
      client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      ns = backend.create();
      queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
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
        connection: ns.connection,
        store: ns.store,
        name: ns.queueName,
        agents: { support: new Agent({ client, model: 'svc-3.5-flash', tools: [refund] }) },
        concurrency: RUNS,
        handleSignals: false,
      });
    });
    afterEach(async () => {
      await worker.close(true);
      await queue.close();
      await ns.cleanup();
      await client.close();
      await emu.close();
    });

    it('should keep both decisions of every run and run both calls once', async () => {
      emu.script([
        ...Array.from({ length: RUNS }, () => twoApprovals),
        ...Array.from({ length: RUNS }, () => ({ message: { content: 'Both refunded.' } })),
      ]);
      const ids = await Promise.all(
        Array.from({ length: RUNS }, (_, i) =>
          queue.enqueue('support', `Refund ${i}`, { runId: `run-${i}` }),
        ),
      );
      for (const id of ids) {
        expect(await queue.waitUntilFinished(id, { timeout: 30_000 })).toMatchObject({
          status: 'interrupted',
        });
      }
      // Two people approve the two calls of each run at the same moment.
      await Promise.all(ids.flatMap((id) => [queue.approve(id, 'a'), queue.approve(id, 'b')]));
      for (const id of ids) {
        expect(await queue.waitUntilFinished(id, { timeout: 30_000 })).toMatchObject({
          status: 'completed',
          text: 'Both refunded.',
        });
      }
      expect(refunds.sort()).toEqual(ids.flatMap((id) => [`${id}:0:a`, `${id}:0:b`]).sort());
    }, 90_000);

    it('should take a repeated approval as done, and refuse one contradicting the stored decision', async () => {
      emu.script([twoApprovals, { message: { content: 'Done.' } }]);
      const id = await queue.enqueue('support', 'Refund', { runId: 'repeated' });
      await queue.waitUntilFinished(id, { timeout: 30_000 });
      await queue.approve(id, 'a');
      await queue.approve(id, 'a');
      await expect(queue.reject(id, 'a', 'changed my mind')).rejects.toMatchObject({
        name: 'ToolApprovalError',
      });
      const record = await queue.get(id);
      expect(record).toMatchObject({ status: 'interrupted', interruptions: [{ toolCallId: 'b' }] });
    }, 60_000);
  });
}
