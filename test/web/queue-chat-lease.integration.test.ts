import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { parseSse } from '../../src/browser-client/parse-sse.js';
import { startEmulator } from '../../src/emulator/index.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { chatRunObserver } from '../../src/web/chat-run-observer.js';
import { createChatHandler } from '../../src/web/create-chat-handler.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';

const LEASE_MS = 600;

/** The text and last event type of a run's SSE stream, read to its end. */
async function readAnswer(response: Response): Promise<{ text: string; last: string | undefined }> {
  expect(response.status).toBe(200);
  let text = '';
  let last: string | undefined;
  for await (const item of parseSse(response.body!)) {
    if (item.kind !== 'message') continue;
    const event = JSON.parse(item.message.data) as { type: string; text?: string };
    if (event.type === 'text-delta') text += event.text ?? '';
    last = event.type;
  }
  return { text, last };
}

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`a queued chat run on ${backend.name}`, { timeout: 60_000 }, () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    it('should keep its lease while no worker takes it for longer than the lease: the relay shows the whole answer', async () => {
      const emu = await startEmulator({ port: 0 });
      cleanups.push(() => emu.close());
      const ns: QueueNamespace = backend.create();
      cleanups.push(() => ns.cleanup());
      const queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
      cleanups.push(() => queue.close());
      const handler = createChatHandler({
        store: ns.store,
        queue,
        leaseMs: LEASE_MS,
        recheckMs: 50,
        sse: { heartbeatMs: 0 },
      });
      cleanups.push(() => handler.close());
      emu.script([{ message: { content: 'The answer, late but whole.' } }]);

      const response = await handler.fetch(
        new Request('http://chat/api/chat', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sessionId: 'late', message: 'Hello?' }),
        }),
      );
      const runId = response.headers.get('x-run-id')!;
      const followed = readAnswer(response);
      // A second relay, joining while the run waits in the queue.
      const relay = readAnswer(await handler.fetch(new Request(`http://chat/api/runs/${runId}/events`)));
      // No worker for six leases (the queue's first enqueue alone takes longer than one).
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 6));

      const client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      const worker: RunWorker = await startWorker({
        connection: ns.connection,
        store: ns.store,
        name: ns.queueName,
        agents: { chat: new Agent({ client, model: 'svc-3.5-flash' }) },
        observeRun: chatRunObserver({ store: ns.store }),
        handleSignals: false,
        strandedRunCheckMs: 0,
      });
      cleanups.push(() => worker.close(true));

      for (const answer of await Promise.all([followed, relay])) {
        expect(answer).toEqual({ text: 'The answer, late but whole.', last: 'finish' });
      }
    });
  });
}
