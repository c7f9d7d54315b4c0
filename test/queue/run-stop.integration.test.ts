import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import type { QueueConnection } from '../../src/queue/queue-connection.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { isStoppedRecord, stopChannel } from '../../src/queue/run-stop.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { eventually } from '../helpers/eventually.js';
import { queueBackends } from '../helpers/queue-backends.js';

const toolTurn = (id: string, name: string) => ({
  message: { content: '', tool_calls: [{ id, function: { name, arguments: '{}' } }] },
});

// Waits `ms`, or until the tool's signal aborts (then rejects, as a tool honouring its signal does).
const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`queue.stop on ${backend.name}`, () => {
    let emu: Emulator;
    let client: SvcClient;
    let ns: { connection: QueueConnection; queueName: string; store: Store; cleanup(): Promise<void> };
    let queue: RunQueue;
    let worker: RunWorker | undefined;
    const started: string[] = [];
    const finished: string[] = [];
    const createAgent = () =>
      new Agent({
        client,
        model: 'svc-3.5-flash',
        tools: [
          defineTool({
            name: 'slow_step',
            description: 'One slow step of a long job.',
            parameters: z.object({}),
            execute: async (_args, ctx) => {
              started.push(ctx.toolCallId);
              await abortableSleep(1_500, ctx.signal);
              finished.push(ctx.toolCallId);
              return 'step done';
            },
          }),
          defineTool({
            name: 'refund',
            description: 'Refunds an order.',
            parameters: z.object({}),
            needsApproval: true,
            execute: (_args, ctx) => {
              started.push(ctx.toolCallId);
              return 'refunded';
            },
          }),
        ],
      });
    const startTheWorker = async (stopCheckMs?: number) => {
      worker = await startWorker({
        connection: ns.connection,
        store: ns.store,
        name: ns.queueName,
        agents: { support: createAgent() },
        handleSignals: false,
        ...(stopCheckMs !== undefined && { stopCheckMs }),
      });
    };

    beforeEach(async () => {
      started.length = 0;
      finished.length = 0;
      emu = await startEmulator({ port: 0 });
      client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      ns = backend.create();
      queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName, attempts: 1 });
    });
    afterEach(async () => {
      await worker?.close(true);
      worker = undefined;
      await queue.close();
      await ns.cleanup();
      await client.close();
      await emu.close();
    });

    it('should abort a running run in its worker: the record ends stopped and no tool starts after', async () => {
      emu.script([
        toolTurn('s1', 'slow_step'),
        toolTurn('s2', 'slow_step'),
        toolTurn('s3', 'slow_step'),
        { message: { content: 'All steps done.' } },
      ]);
      await startTheWorker();
      const events: AgentEvent[] = [];
      const following = (async () => {
        for await (const event of queue.events('long')) events.push(event);
      })();
      await queue.enqueue('support', 'Run the long job', { runId: 'long' });
      await eventually(async () => started.length > 0);
      expect(started).toEqual(['s1']);

      await queue.stop('long', 'the user pressed Stop');
      const record = await queue.waitUntilFinished('long', { timeout: 15_000 });
      await following;

      expect(isStoppedRecord(record)).toBe(true);
      expect(record.error).toBe('RunStoppedError: The run was stopped: the user pressed Stop');
      expect(events.at(-1)).toMatchObject({ type: 'abort', reason: { name: 'RunStoppedError' } });
      // The run's stored event log ends the same way, for the web servers relaying it.
      await eventually(
        async () => (await ns.store.readRunEvents!('long')).at(-1)?.data.includes('"abort"') === true,
      );
      // Give a run that ignored the stop the time to start its next step.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(started).toEqual(['s1']);
      expect(finished).toEqual([]);
      expect(emu.requests().filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(1);
    });

    it('should take a queued run off the queue, so no worker ever runs it', async () => {
      emu.script([{ message: { content: 'never asked' } }]);
      await queue.enqueue('support', 'Hello', { runId: 'queued' });

      const record = await queue.stop('queued');
      await startTheWorker();
      // Waiting for nothing to happen: the stopped run must not start on the worker.
      await new Promise((resolve) => setTimeout(resolve, 1_000));

      expect(isStoppedRecord(record)).toBe(true);
      expect(record.error).toBe('RunStoppedError: The run was stopped');
      expect(isStoppedRecord((await queue.get('queued'))!)).toBe(true);
      expect(emu.requests()).toHaveLength(0);
    });

    it('should end a run paused for approval, whose call then never runs', async () => {
      emu.script([toolTurn('r1', 'refund'), { message: { content: 'Refunded.' } }]);
      await startTheWorker();
      await queue.enqueue('support', 'Refund order 42', { runId: 'paused' });
      expect((await queue.waitUntilFinished('paused')).status).toBe('interrupted');

      const record = await queue.stop('paused', 'changed my mind');

      expect(isStoppedRecord(record)).toBe(true);
      expect(record.interruptions).toEqual([]);
      await expect(queue.approve('paused', 'r1')).rejects.toThrow(/r1/);
      // Waiting for nothing to happen: the refused approval must not resume the run.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(started).toEqual([]);
    });

    it('should leave a completed run as it ended', async () => {
      emu.script([{ message: { content: 'Hi there.' } }]);
      await startTheWorker();
      await queue.enqueue('support', 'Hello', { runId: 'done' });
      await queue.waitUntilFinished('done');

      const record = await queue.stop('done');

      expect(record.status).toBe('completed');
      expect(record.text).toBe('Hi there.');
    });

    it('should stop a running run whose stop signal was lost, by re-reading the stored request', async () => {
      if (!ns.store.setValueIf) return expect.fail('the store keeps no shared values');
      emu.script([toolTurn('s1', 'slow_step'), toolTurn('s2', 'slow_step'), { message: { content: 'x' } }]);
      await startTheWorker(200);
      await queue.enqueue('support', 'Run the long job', { runId: 'quiet' });
      await eventually(async () => started.length > 0);
      expect(started).toEqual(['s1']);

      // The request is written without the signal announcing it.
      expect(await ns.store.setValueIf(stopChannel('quiet'), 0, JSON.stringify({ reason: 'quietly' }))).toBe(
        true,
      );
      const record = await queue.waitUntilFinished('quiet', { timeout: 15_000 });

      expect(record.error).toBe('RunStoppedError: The run was stopped: quietly');
      expect(started).toEqual(['s1']);
    });

    it('should refuse a run it does not know, naming it', async () => {
      await expect(queue.stop('nope')).rejects.toThrow('No stored run "nope"');
    });
  });
}
