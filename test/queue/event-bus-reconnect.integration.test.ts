import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { RunState } from '../../src/agent/run-state.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { createEventBus, type EventBus } from '../../src/queue/event-bus.js';
import { normalizeConnection } from '../../src/queue/queue-connection.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { eventually } from '../helpers/eventually.js';
import { createFaultAgent, faultTurn } from '../helpers/fault-run-invariants.js';
import { createProxiedNamespace, type ProxiedNamespace } from '../helpers/proxied-queue-backend.js';
import { queueBackends } from '../helpers/queue-backends.js';

const startEvent: AgentEvent = { type: 'start', input: [] } as unknown as AgentEvent;

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`following runs across dropped connections on ${backend.name}`, () => {
    let ns: ProxiedNamespace;
    let bus: EventBus | undefined;
    let queue: RunQueue | undefined;

    beforeEach(async () => {
      ns = await createProxiedNamespace(backend);
    });
    afterEach(async () => {
      await bus?.close();
      bus = undefined;
      await queue?.close();
      queue = undefined;
      await ns.cleanup();
    });

    it("should listen again after the bus's connections were cut, and tell the followers", async () => {
      bus = createEventBus(normalizeConnection(ns.connection), ns.queueName);
      let reconnects = 0;
      await bus.subscribe(
        'before',
        () => undefined,
        () => reconnects++,
      );
      ns.queueProxy.resetAll();
      await eventually(async () => reconnects > 0, 15_000);
      // A run followed after the drop gets its events.
      const received: AgentEvent[] = [];
      await bus.subscribe('after', (event) => received.push(event));
      await eventually(async () => {
        await bus!.publish('after', startEvent).catch(() => undefined);
        return received.length > 0;
      }, 15_000);
      expect(received[0]).toMatchObject({ type: 'start' });
    }, 30_000);

    it('should end a follower whose run ended while the connection was down', async () => {
      queue = new RunQueue({ connection: ns.connection, store: ns.direct.store, name: ns.queueName });
      const created = await ns.direct.store.createRun({
        id: 'quiet',
        agentName: 'support',
        status: 'running',
        state: new RunState({ messages: [{ role: 'user', content: 'Hi' }] }).toJSON() as never,
        interruptions: [],
      });
      const events: AgentEvent[] = [];
      const following = (async () => {
        for await (const event of queue!.events('quiet')) events.push(event);
      })();
      // The follower listens (it got an event through the proxy) before its connection is cut.
      bus = createEventBus(normalizeConnection(ns.direct.connection), ns.queueName);
      await eventually(async () => {
        await bus!.publish('quiet', startEvent);
        return events.length > 0;
      }, 15_000);
      ns.queueProxy.setRefusing(true);
      ns.queueProxy.resetAll();
      // The run fails meanwhile; its `error` event is lost with the connection.
      const { version, createdAt: _c, updatedAt: _u, ...input } = created;
      await ns.direct.store.updateRun('quiet', version, { ...input, status: 'failed', error: 'Error: gone' });
      ns.queueProxy.setRefusing(false);
      await following;
      expect(events.every((event) => event.type === 'start')).toBe(true);
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
  });
}
