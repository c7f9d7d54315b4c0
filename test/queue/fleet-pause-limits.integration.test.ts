import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { eventually } from '../helpers/eventually.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { spawnLimitsWorker, stopWorker } from '../helpers/spawn-limits-worker.js';

const RUNS_PER_WORKER = 32;
const REFUSING_MS = 1_500;

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`the first 429 on ${backend.name}, workers with limits`, () => {
    let emu: Emulator | undefined;
    let ns: QueueNamespace | undefined;
    let queue: RunQueue | undefined;
    const workers: ChildProcess[] = [];
    afterEach(async () => {
      await Promise.all(workers.splice(0).map(stopWorker));
      await queue?.close();
      await ns?.cleanup();
      await emu?.close();
    });

    it('should send a few requests, not one per run, to a service answering 429 (Retry-After: 2) for 1.5 s', async () => {
      emu = await startEmulator({ port: 0 });
      ns = backend.create();
      queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
      const config = {
        backend: backend.name,
        connection: ns.connection,
        store: ns.storeOptions,
        queueName: ns.queueName,
        baseURL: emu.baseURL,
        concurrency: RUNS_PER_WORKER,
        // Budgets far above what the test asks: only the service's 429s hold the fleet back.
        limits: { models: { 'svc-3.5-flash': { requests: 100_000 } } },
      };
      workers.push(...(await Promise.all([1, 2].map(() => spawnLimitsWorker(config, emu!.apiKey)))));
      const chat = () => emu!.requests().filter((request) => request.path === '/v1/chat/completions');
      emu.setFaults([{ path: '/chat/completions', status: 429, headers: { 'retry-after': '2' } }]);
      const runIds = await Promise.all(
        Array.from({ length: RUNS_PER_WORKER * 2 }, (_, i) => queue!.enqueue('short', `Say hello ${i}`)),
      );
      // The refusal lasts 1.5 s from the first request that meets it.
      await eventually(async () => chat().length >= 1, 20_000);
      await new Promise((resolve) => setTimeout(resolve, REFUSING_MS));
      const refused = chat().length;
      emu.setFaults([]);
      for (const id of runIds) {
        expect((await queue.waitUntilFinished(id, { timeout: 60_000 })).status).toBe('completed');
      }
      // One request per worker finds out; the rest wait for its answer, then for the pause it stored.
      expect(refused).toBeLessThanOrEqual(4);
    }, 120_000);
  });
}
