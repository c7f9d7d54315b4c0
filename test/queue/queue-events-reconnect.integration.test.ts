import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { RunState } from '../../src/agent/run-state.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { RunEventLogWriter } from '../../src/stores/run-event-log-writer.js';
import { eventually } from '../helpers/eventually.js';
import { createFaultAgent, faultTurn } from '../helpers/fault-run-invariants.js';
import { createProxiedNamespace, type ProxiedNamespace } from '../helpers/proxied-queue-backend.js';
import { queueBackends } from '../helpers/queue-backends.js';

const event = (n: number) => JSON.stringify({ type: 'text-delta', text: `t${n}` });
const startEvent = JSON.stringify({ type: 'start', input: [] });

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(
    `following runs across dropped store connections on ${backend.name}`,
    () => {
      let ns: ProxiedNamespace;
      let queue: RunQueue | undefined;

      beforeEach(async () => {
        ns = await createProxiedNamespace(backend);
      });
      afterEach(async () => {
        await queue?.close();
        queue = undefined;
        await ns.cleanup();
      });

      const createRunningRecord = (id: string) =>
        ns.direct.store.createRun({
          id,
          agentName: 'support',
          status: 'running',
          state: new RunState({ messages: [{ role: 'user', content: 'Hi' }] }).toJSON() as never,
          interruptions: [],
        });

      it("should get every event once and in order when the follower's store connections are cut mid-run", async () => {
        // The follower reads and listens through the proxy; the writer goes straight to the service.
        queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
        await createRunningRecord('cut');
        const writer = new RunEventLogWriter(ns.direct.store as never, 'cut', { firstId: 0 });
        writer.push(startEvent);
        for (let n = 1; n < 20; n++) writer.push(event(n));
        await writer.close();
        const events: AgentEvent[] = [];
        const following = (async () => {
          for await (const each of queue!.events('cut')) events.push(each);
        })();
        await eventually(async () => events.length === 20, 15_000);
        ns.storeProxy.setRefusing(true);
        ns.storeProxy.resetAll();
        // Appended while the follower's connections are down: its signals are lost, the log keeps them.
        for (let n = 20; n < 40; n++) writer.push(event(n));
        await writer.close();
        ns.storeProxy.setRefusing(false);
        await eventually(async () => events.length >= 40, 20_000);
        writer.push(JSON.stringify({ type: 'finish', finishReason: 'stop', usage: {} }));
        await writer.close();
        await following;
        expect(
          events.map((each) => (each.type === 'text-delta' ? Number(each.text.slice(1)) : each.type)),
        ).toEqual(['start', ...Array.from({ length: 39 }, (_, index) => index + 1), 'finish']);
      }, 45_000);

      it('should end a follower whose run ended while the connection was down', async () => {
        queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
        const created = await createRunningRecord('quiet');
        const events: AgentEvent[] = [];
        const following = (async () => {
          for await (const each of queue!.events('quiet')) events.push(each);
        })();
        const writer = new RunEventLogWriter(ns.direct.store as never, 'quiet', { firstId: 0 });
        writer.push(startEvent);
        await writer.close();
        await eventually(async () => events.length > 0, 15_000);
        ns.storeProxy.setRefusing(true);
        ns.storeProxy.resetAll();
        // The run fails meanwhile without an `error` event (its worker died).
        const { version, createdAt: _c, updatedAt: _u, ...input } = created;
        await ns.direct.store.updateRun('quiet', version, {
          ...input,
          status: 'failed',
          error: 'Error: gone',
        });
        ns.storeProxy.setRefusing(false);
        await following;
        expect(events.map((each) => each.type)).toEqual(['start']);
      }, 30_000);

      describe('when a run is enqueued for an agent no worker has', () => {
        let emu: Emulator;
        let client: SvcClient;
        let worker: RunWorker;
        beforeEach(async () => {
          emu = await startEmulator({ port: 0 });
          emu.script([faultTurn]);
          client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
          worker = await startWorker({
            connection: ns.connection,
            store: ns.direct.store,
            name: ns.queueName,
            agents: { faulty: createFaultAgent(client, []) },
            handleSignals: false,
          });
        });
        afterEach(async () => {
          await worker.close(true);
          await client.close();
          await emu.close();
        });

        it('should end its follower with an error event', async () => {
          queue = new RunQueue({ connection: ns.connection, store: ns.direct.store, name: ns.queueName });
          const events: AgentEvent[] = [];
          const following = (async () => {
            for await (const event of queue!.events('orphan')) events.push(event);
          })();
          await eventually(async () => ns.queueProxy.openConnections > 0, 15_000);
          await queue.enqueue('nobody', 'Hi', { runId: 'orphan' });
          await following;
          expect(events.at(-1)).toMatchObject({
            type: 'error',
            error: { message: 'No agent "nobody" in this worker' },
          });
          expect(await queue.get('orphan')).toMatchObject({ status: 'failed' });
        }, 30_000);
      });
    },
  );
}
