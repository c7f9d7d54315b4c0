import { afterEach, describe, expect, it } from 'vitest';
import { createEventBus } from '../../src/queue/event-bus.js';
import { normalizeConnection } from '../../src/queue/queue-connection.js';
import { EventBusUnavailableError } from '../../src/queue/queue-errors.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { isStoppedRecord } from '../../src/queue/run-stop.js';
import { createProxiedNamespace, type ProxiedNamespace } from '../helpers/proxied-queue-backend.js';
import { queueBackends } from '../helpers/queue-backends.js';
import { chunkContains } from '../helpers/tcp-fault-proxy.js';

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`the queue's event bus on ${backend.name}`, { timeout: 60_000 }, () => {
    let ns: ProxiedNamespace | undefined;
    const closers: Array<() => Promise<unknown>> = [];
    afterEach(async () => {
      ns?.queueProxy.resume();
      for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
      await ns?.cleanup();
      ns = undefined;
    });
    // The bus's own messages: its channel is named after the queue (BullMQ's traffic never carries it).
    const busTraffic = () =>
      chunkContains(backend.name === 'redis' ? `svc-agents:${ns!.queueName}:events:` : 'svc_agents_events_');

    it("should let queue.stop end when the bus's connection goes half-open under its abort event", async () => {
      ns = await createProxiedNamespace(backend);
      const queue = new RunQueue({
        connection: ns.connection,
        store: ns.store,
        name: ns.queueName,
        enqueueTimeoutMs: 1_000,
      });
      closers.push(() => queue.close());
      const runId = await queue.enqueue('nobody', 'Hello');
      // Every connection of the queue stops answering once the abort event is on its way.
      const stalled = ns.queueProxy.stallAfter(busTraffic());

      const record = await queue.stop(runId, 'changed my mind');

      await stalled;
      expect(isStoppedRecord(record)).toBe(true);
      expect((await ns.direct.store.getRun(runId))?.status).toBe('failed');
    });

    it('should fail a publish on a half-open connection with EventBusUnavailableError', async () => {
      ns = await createProxiedNamespace(backend);
      const bus = createEventBus(normalizeConnection(ns.connection), ns.queueName, 500);
      closers.push(() => bus.close());
      await bus.publish('run-1', { type: 'text-delta', text: 'connected' } as never);
      ns.queueProxy.stall();

      const error = await bus.publish('run-1', { type: 'text-delta', text: 'lost' } as never).catch((e) => e);

      expect(error).toBeInstanceOf(EventBusUnavailableError);
      expect(error.transient).toBe(true);
      expect(error.message).toContain('run-1');
      // The bus serves again once the network does.
      ns.queueProxy.resume();
      await bus.publish('run-1', { type: 'text-delta', text: 'back' } as never);
    });
  });
}
