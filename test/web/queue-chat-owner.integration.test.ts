import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { startWorker } from '../../src/queue/start-worker.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { chatRunObserver } from '../../src/web/chat-run-observer.js';
import { createChatHandler } from '../../src/web/create-chat-handler.js';
import { queueBackends } from '../helpers/queue-backends.js';

const toolTurn = (id: string, name: string) => ({
  message: { content: '', tool_calls: [{ id, function: { name, arguments: {} } }] },
});

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(
    `a chat handler with a queue on ${backend.name}`,
    { timeout: 60_000 },
    () => {
      const cleanups: Array<() => Promise<void>> = [];
      afterEach(async () => {
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      });

      it("should give the worker's agent factory each run's owner, also after an approval, for two owners", async () => {
        const emu = await startEmulator({ port: 0 });
        cleanups.push(() => emu.close());
        const ns = backend.create();
        cleanups.push(() => ns.cleanup());
        const queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
        cleanups.push(() => queue.close());
        const handler = createChatHandler({
          store: ns.store,
          queue,
          recheckMs: 50,
          sse: { heartbeatMs: 0 },
          authorize: (request) => {
            const user = request.headers.get('x-user');
            return user ? { userId: user } : false;
          },
        });
        cleanups.push(() => handler.close());

        // What each tool saw: the owner its agent was built for, as a per-user tool would use it.
        const seen: string[] = [];
        const client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
        const agentFor = ({ owner }: { owner: string | undefined }) =>
          new Agent({
            client,
            model: 'svc-3.5-flash',
            tools: [
              defineTool({
                name: 'whoami',
                description: 'Names the user.',
                parameters: z.object({}),
                execute: () => {
                  seen.push(`whoami ${owner}`);
                  return `you are ${owner}`;
                },
              }),
              defineTool({
                name: 'my_records',
                description: "Deletes the user's records.",
                parameters: z.object({}),
                needsApproval: true,
                execute: () => {
                  seen.push(`my_records ${owner}`);
                  return `records of ${owner} deleted`;
                },
              }),
            ],
          });
        const worker = await startWorker({
          connection: ns.connection,
          store: ns.store,
          name: ns.queueName,
          agents: { chat: agentFor },
          observeRun: chatRunObserver({ store: ns.store }),
          handleSignals: false,
          strandedRunCheckMs: 0,
        });
        cleanups.push(() => worker.close(true));

        const call = (user: string, path: string, body?: unknown) =>
          handler.fetch(
            new Request(`http://chat/api${path}`, {
              method: body === undefined ? 'GET' : 'POST',
              headers: { 'content-type': 'application/json', 'x-user': user },
              ...(body !== undefined && { body: JSON.stringify(body) }),
            }),
          );
        for (const user of ['alice', 'bob']) {
          emu.script([
            toolTurn(`w-${user}`, 'whoami'),
            toolTurn(`d-${user}`, 'my_records'),
            { message: { content: `Done for ${user}.` } },
          ]);
          // Both owners name their session alike: each has their own.
          const paused = await (await call(user, '/chat', { sessionId: 'mine', message: 'Clean up' })).text();
          expect(paused).toContain('"type":"finish"');
          const session = (await (await call(user, '/sessions/mine')).json()) as { pausedRunId: string };
          const approved = await call(user, `/runs/${session.pausedRunId}/approvals`, {
            decisions: [{ toolCallId: `d-${user}`, approved: true }],
          });
          const text = await approved.text();
          expect(approved.status).toBe(200);
          expect(text).toContain(`Done for ${user}.`);
        }

        expect(seen).toEqual(['whoami alice', 'my_records alice', 'whoami bob', 'my_records bob']);
      });
    },
  );
}
