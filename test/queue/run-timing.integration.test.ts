import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentStep } from '../../src/agent/run-result.js';
import type { RunResume } from '../../src/agent/step-timing.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { answer, toolTurn } from '../helpers/tool-turn.js';

// A queued run keeps the same times as a library run (for the run inspector): its steps, its tool calls,
// the approval it waited for, and each time a worker took it up.

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`queued run times on ${backend.name}`, () => {
    let emu: Emulator;
    let client: SvcClient;
    let ns: QueueNamespace;
    let queue: RunQueue;
    let worker: RunWorker | undefined;

    beforeEach(async () => {
      emu = await startEmulator({ port: 0 });
      client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      ns = backend.create();
      queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName, attempts: 1 });
      const refund = defineTool({
        name: 'refund',
        description: 'Refunds an order.',
        parameters: z.object({}),
        needsApproval: true,
        execute: () => 'refunded',
      });
      worker = await startWorker({
        connection: ns.connection,
        store: ns.store,
        name: ns.queueName,
        agents: { support: new Agent({ client, model: 'svc-3.5-flash', tools: [refund] }) },
        handleSignals: false,
      });
    });
    afterEach(async () => {
      await worker?.close(true);
      await queue.close();
      await ns.cleanup();
      await client.close();
      await emu.close();
    });

    describe('when a queued run pauses for approval and is approved', () => {
      it('should keep its step and tool times, the approval wait and each pickup by a worker', async () => {
        emu.script([toolTurn(['c1', 'refund']), answer('Refund done.')]);
        const runId = await queue.enqueue('support', 'Refund order 42');
        expect(await queue.waitUntilFinished(runId, { timeout: 15_000 })).toMatchObject({
          status: 'interrupted',
        });
        await queue.approve(runId, 'c1');
        const done = await queue.waitUntilFinished(runId, { timeout: 15_000 });
        expect(done.status).toBe('completed');
        const state = done.state as { steps: AgentStep[]; resumes: RunResume[] };
        for (const step of state.steps)
          expect(step.timing!.doneAt).toBeGreaterThanOrEqual(step.timing!.requestedAt);
        const refund = state.steps[0]!.toolResults[0]!;
        expect(refund.approval).toEqual({
          requestedAt: expect.any(Number),
          decidedAt: expect.any(Number),
          decision: 'approved',
        });
        expect(refund.startedAt!).toBeGreaterThanOrEqual(refund.approval!.decidedAt!);
        // Picked up from the queue, then again after the approval re-enqueued it.
        expect(state.resumes.map((resume) => resume.from)).toEqual(['running', 'running']);
        expect(state.resumes[1]!.at).toBeGreaterThanOrEqual(refund.approval!.decidedAt!);
      });
    });
  });
}
