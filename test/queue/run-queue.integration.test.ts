import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { defineGuardrail } from '../../src/agent/guardrails/guardrail.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import type { QueueConnection } from '../../src/queue/queue-connection.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { queueBackends } from '../helpers/queue-backends.js';

const toolTurn = (id: string, name: string) => ({
  message: { content: '', tool_calls: [{ id, function: { name, arguments: '{}' } }] },
});

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`RunQueue on ${backend.name}`, () => {
    let emu: Emulator;
    let client: SvcClient;
    let ns: { connection: QueueConnection; queueName: string; store: Store; cleanup(): Promise<void> };
    let queue: RunQueue;
    let worker: RunWorker | undefined;
    const executed: string[] = [];
    const createTools = () => [
      defineTool({
        name: 'lookup',
        description: 'Looks up an order.',
        parameters: z.object({}),
        execute: (_args, ctx) => {
          executed.push(ctx.idempotencyKey);
          return 'order 42: shipped';
        },
      }),
      defineTool({
        name: 'refund',
        description: 'Refunds an order.',
        parameters: z.object({}),
        needsApproval: true,
        execute: (_args, ctx) => {
          executed.push(ctx.idempotencyKey);
          return 'refunded';
        },
      }),
    ];
    const createAgent = () => new Agent({ client, model: 'svc-3.5-flash', tools: createTools() });
    const start = async () => {
      worker = await startWorker({
        connection: ns.connection,
        store: ns.store,
        name: ns.queueName,
        agents: { support: createAgent() },
        concurrency: 4,
        handleSignals: false,
      });
    };

    beforeEach(async () => {
      executed.length = 0;
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

    describe('when a run is enqueued', () => {
      it('should be stored at once, run by a worker and followed through its events', async () => {
        emu.script([toolTurn('c1', 'lookup'), { message: { content: 'Your order shipped.' } }]);
        const runId = await queue.enqueue('support', 'Where is order 42?', { runId: 'r1' });
        expect(runId).toBe('r1');
        expect(await queue.get('r1')).toMatchObject({ status: 'running', agentName: 'support' });
        const events: AgentEvent[] = [];
        const following = (async () => {
          for await (const event of queue.events('r1')) events.push(event);
        })();
        // Subscribed before the worker starts, so no event is missed.
        await new Promise((resolve) => setTimeout(resolve, 100));
        await start();
        const record = await queue.waitUntilFinished('r1', { timeout: 15_000 });
        expect(record).toMatchObject({ status: 'completed', text: 'Your order shipped.' });
        await following;
        expect(events.map((event) => event.type)).toEqual(
          expect.arrayContaining(['start', 'start-step', 'tool-call', 'tool-result', 'finish']),
        );
        expect(events.at(-1)?.type).toBe('finish');
        expect(executed).toEqual(['r1:0:c1']);
      });
    });

    describe('when a run waits for approval', () => {
      it('should pause, and complete after queue.approve with the call run once', async () => {
        await start();
        emu.script([toolTurn('c9', 'refund'), { message: { content: 'Refund done.' } }]);
        const runId = await queue.enqueue('support', 'Refund order 42');
        const paused = await queue.waitUntilFinished(runId, { timeout: 15_000 });
        expect(paused).toMatchObject({
          status: 'interrupted',
          interruptions: [{ toolCallId: 'c9', toolName: 'refund' }],
        });
        expect(executed).toEqual([]);
        await queue.approve(runId, 'c9');
        const done = await queue.waitUntilFinished(runId, { timeout: 15_000 });
        expect(done).toMatchObject({ status: 'completed', text: 'Refund done.' });
        expect(executed).toEqual([`${runId}:0:c9`]);
      });
    });

    describe('when the agent has input guardrails', () => {
      it('should check the queued input before the first model request', async () => {
        let checks = 0;
        const guarded = new Agent({
          client,
          model: 'svc-3.5-flash',
          name: 'guarded',
          inputGuardrails: [
            defineGuardrail({
              name: 'no_passwords',
              runInParallel: false,
              execute: ({ text }: { text: string }) => {
                checks++;
                return { tripwire: /password/.test(text) };
              },
            }),
          ],
        });
        worker = await startWorker({
          connection: ns.connection,
          store: ns.store,
          name: ns.queueName,
          agents: { guarded },
          handleSignals: false,
        });
        emu.script([{ message: { content: 'The admin password is hunter2' } }]);
        const runId = await queue.enqueue('guarded', 'tell me the admin password');
        const record = await queue.waitUntilFinished(runId, { timeout: 15_000 });
        expect(record).toMatchObject({ status: 'failed', inputTripwire: 'no_passwords' });
        expect(record.text).toBeUndefined();
        expect(checks).toBe(1);
        expect(emu.requests().filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(
          0,
        );
      });
    });

    describe('when the call waiting for approval is inside an agent used as a tool', () => {
      it('should complete after queue.approve with the call run once', async () => {
        const sub = new Agent({ client, model: 'svc-3.5-flash', name: 'sub', tools: createTools() });
        const parent = new Agent({
          client,
          model: 'svc-3.5-flash',
          name: 'parent',
          tools: [sub.asTool({ name: 'ask_sub', description: 'Asks the sub-agent.' })],
        });
        worker = await startWorker({
          connection: ns.connection,
          store: ns.store,
          name: ns.queueName,
          agents: { parent },
          handleSignals: false,
        });
        emu.script([
          {
            message: {
              content: '',
              tool_calls: [{ id: 'p1', function: { name: 'ask_sub', arguments: '{"input":"refund"}' } }],
            },
          },
          toolTurn('s1', 'refund'),
          { message: { content: 'Refunded.' } },
          { message: { content: 'Your refund is done.' } },
        ]);
        const runId = await queue.enqueue('parent', 'Refund order 42');
        const paused = await queue.waitUntilFinished(runId, { timeout: 15_000 });
        expect(paused).toMatchObject({ status: 'interrupted', interruptions: [{ toolCallId: 's1' }] });
        await queue.approve(runId, 's1');
        const done = await queue.waitUntilFinished(runId, { timeout: 15_000 });
        expect(done).toMatchObject({ status: 'completed', text: 'Your refund is done.' });
        expect(executed).toHaveLength(1);
      });
    });

    describe('when the service answers 429 with Retry-After', () => {
      it('should delay the run instead of spending its one attempt', async () => {
        await start();
        emu.script([
          { error: { status: 429, headers: { 'Retry-After': '0.3' } } },
          { error: { status: 429, headers: { 'Retry-After': '0.3' } } },
          { message: { content: 'Finally.' } },
        ]);
        const runId = await queue.enqueue('support', 'Hello');
        const record = await queue.waitUntilFinished(runId, { timeout: 15_000 });
        expect(record).toMatchObject({ status: 'completed', text: 'Finally.' });
      });
    });

    describe('when a run fails for good', () => {
      it('should record it as failed with the error', async () => {
        await start();
        emu.script([
          {
            error: { status: 400, body: { error: { message: 'bad thing', type: 'invalid_request_error' } } },
          },
        ]);
        const runId = await queue.enqueue('support', 'Hello');
        const record = await queue.waitUntilFinished(runId, { timeout: 15_000 });
        expect(record.status).toBe('failed');
        expect(record.error).toContain('bad thing');
      });
    });
  });
}
