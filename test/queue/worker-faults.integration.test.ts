import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/agent/durable/store.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { eventually } from '../helpers/eventually.js';
import {
  createFaultAgent,
  expectFaultInvariants,
  faultTurn,
  settleRuns,
  type ToolStart,
} from '../helpers/fault-run-invariants.js';
import { createProxiedNamespace, type ProxiedNamespace } from '../helpers/proxied-queue-backend.js';
import { queueBackends } from '../helpers/queue-backends.js';
import { chunkContains } from '../helpers/tcp-fault-proxy.js';

const OUTAGE_MS = 3_000;

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`a worker under store and queue faults on ${backend.name}`, () => {
    let emu: Emulator;
    let client: SvcClient;
    let ns: ProxiedNamespace;
    let queue: RunQueue;
    const workers: RunWorker[] = [];
    const starts: ToolStart[] = [];
    const errors: unknown[] = [];

    const start = async (store: Store = ns.store, toolMs = 150) => {
      const worker = await startWorker({
        connection: ns.connection,
        store,
        name: ns.queueName,
        agents: { faulty: createFaultAgent(client, starts, toolMs) },
        concurrency: 4,
        handleSignals: false,
        lockDurationMs: 2_000,
        stalledIntervalMs: 500,
        onError: (error) => errors.push(error),
      });
      workers.push(worker);
      return worker;
    };

    beforeEach(async () => {
      starts.length = 0;
      errors.length = 0;
      emu = await startEmulator({ port: 0 });
      emu.script(Array.from({ length: 60 }, () => faultTurn));
      client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      ns = await createProxiedNamespace(backend);
      // One attempt: a run failed for a connection error before would have been failed for good.
      queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName, attempts: 1 });
    });
    afterEach(async () => {
      ns.setOutage(false);
      for (const worker of workers.splice(0)) await worker.close(true);
      await queue.close();
      await ns.cleanup();
      await client.close();
      await emu.close();
    });

    describe("when the store is down for a few seconds while runs are in progress (the queue's connections reset)", () => {
      it('should retry the runs from their checkpoints and complete every one', async () => {
        // Tools of 1 s: the checkpoints after the first ones fall inside the outage.
        await start(ns.store, 1_000);
        const ids = await Promise.all(
          Array.from({ length: 6 }, (_, i) => queue.enqueue('faulty', `Job ${i}`, { runId: `outage-${i}` })),
        );
        await eventually(async () => starts.length >= 1, 20_000);
        // With the queue reachable, a run failed for a store error would have its job failed for good
        // (with the queue down too, BullMQ could not record that, and the job came back by luck).
        ns.storeProxy.setRefusing(true);
        ns.storeProxy.resetAll();
        ns.queueProxy.resetAll();
        await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
        ns.storeProxy.setRefusing(false);
        const records = await settleRuns(ns.direct.store, ids, 60_000);
        expectFaultInvariants(records, starts);
        // The outage was seen (and survived), not missed.
        expect(errors.length).toBeGreaterThan(0);
      }, 90_000);
    });

    describe("when the reply to a run's checkpoint is lost after the store applied it", () => {
      it('should read the run instead of giving it up, and complete it', async () => {
        await start();
        // A checkpoint with calls in flight: the write before the turn's tools start.
        const lost = ns.storeProxy.dropReplyTo(
          (chunk) => chunkContains('"inFlight":["')(chunk) && chunkContains('"status":"running"')(chunk),
        );
        const runId = await queue.enqueue('faulty', 'Job', { runId: 'lost-reply' });
        await lost;
        const [record] = await settleRuns(ns.direct.store, [runId], 30_000);
        expectFaultInvariants([record], starts);
      }, 60_000);
    });

    describe('when a worker is force-closed while its run is in progress', () => {
      it('should abort the run, write and run nothing more, and leave it to another worker', async () => {
        let writesAfterClose = 0;
        let closed = false;
        const counted: Store = {
          ...bound(ns.direct.store),
          async updateRun(id, version, record) {
            if (closed) writesAfterClose++;
            return ns.direct.store.updateRun(id, version, record);
          },
        };
        const first = await start(counted);
        const runId = await queue.enqueue('faulty', 'Job', { runId: 'force-closed' });
        await eventually(async () => starts.length >= 1, 20_000);
        await first.close(true);
        closed = true;
        const startsAtClose = starts.length;
        // Long enough for the rest of the run (two turns of 150 ms tools) had it kept going.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(writesAfterClose).toBe(0);
        expect(starts.length).toBe(startsAtClose);
        expect((await ns.direct.store.getRun(runId))?.status).toBe('running');
        await start(ns.direct.store);
        const [record] = await settleRuns(ns.direct.store, [runId], 30_000);
        expectFaultInvariants([record], starts);
      }, 60_000);
    });
  });
}

// A store's methods bound to it, so spreading keeps `this`.
function bound(store: Store): Store {
  return {
    createRun: store.createRun.bind(store),
    getRun: store.getRun.bind(store),
    updateRun: store.updateRun.bind(store),
    listRuns: store.listRuns.bind(store),
    deleteRun: store.deleteRun.bind(store),
    getItems: store.getItems.bind(store),
    addItems: store.addItems.bind(store),
    popItem: store.popItem.bind(store),
    clearSession: store.clearSession.bind(store),
  };
}
