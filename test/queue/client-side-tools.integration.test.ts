import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import type { QueueConnection } from '../../src/queue/queue-connection.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { queueBackends } from '../helpers/queue-backends.js';
import { chatRequests } from '../helpers/use-agent-test-env.js';

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`a client-side tool through RunQueue on ${backend.name}`, () => {
    let emu: Emulator;
    let client: SvcClient;
    let ns: { connection: QueueConnection; queueName: string; store: Store; cleanup(): Promise<void> };
    let queue: RunQueue;
    let worker: RunWorker | undefined;

    beforeEach(async () => {
      emu = await startEmulator({ port: 0 });
      client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      ns = backend.create();
      queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName, attempts: 1 });
      const location = defineTool({
        name: 'get_location',
        description: 'The location of the user, from the client.',
        parameters: z.object({}),
      });
      worker = await startWorker({
        connection: ns.connection,
        store: ns.store,
        name: ns.queueName,
        agents: { support: new Agent({ client, model: 'svc-3.5-flash', tools: [location] }) },
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

    it('should pause with the call pending and continue with the output queue.decide records', async () => {
      emu.script([
        {
          message: {
            content: '',
            tool_calls: [{ id: 'c1', function: { name: 'get_location', arguments: '{}' } }],
          },
        },
        { message: { content: 'You are in Oslo.' } },
      ]);
      const runId = await queue.enqueue('support', 'Where am I?');
      const paused = await queue.waitUntilFinished(runId, { timeout: 15_000 });
      expect(paused).toMatchObject({
        status: 'interrupted',
        interruptions: [{ toolCallId: 'c1', toolName: 'get_location', clientSide: true }],
      });
      await expect(queue.approve(runId, 'c1')).rejects.toThrow(/client-side/);
      await queue.decide(runId, [{ toolCallId: 'c1', approved: true, output: { city: 'Oslo' } }]);
      const done = await queue.waitUntilFinished(runId, { timeout: 15_000 });
      expect(done).toMatchObject({ status: 'completed', text: 'You are in Oslo.' });
      expect(chatRequests(emu)[1]!.messages.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'c1',
        content: '{"city":"Oslo"}',
      });
    });
  });
}
