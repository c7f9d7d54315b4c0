import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { spawnLimitsWorker, stopWorker } from '../helpers/spawn-limits-worker.js';

// The 400-run version at a per-minute limit is bench/rate-limits; here a short window keeps CI fast.
const RUNS = 100;
const WORKERS = 4;
/** The service's limit: 10 requests a second, under what 4 workers x 8 runs send unchecked even on a loaded machine. */
const WINDOW_MS = 1_000;
const SERVICE_REQUESTS = 10;
/** The fleet's budget, a little under the service's: request timing jitters between the two clocks. */
const FLEET_REQUESTS = 9;

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`fleet-wide rate limits on ${backend.name}`, () => {
    let emu: Emulator;
    let ns: QueueNamespace;
    let queue: RunQueue;
    const workers: ChildProcess[] = [];
    beforeAll(async () => {
      emu = await startEmulator({
        faults: [
          {
            path: '/chat/completions',
            model: 'svc-3.5-flash',
            rateLimit: { requests: SERVICE_REQUESTS, windowMs: WINDOW_MS },
          },
        ],
      });
      ns = backend.create();
      queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
    });
    afterAll(async () => {
      await Promise.all(workers.map(stopWorker));
      await queue?.close();
      await ns?.cleanup();
      await emu?.close();
    });

    it('should finish every run of 4 workers with a few 429s per window, not one per worker per retry', async () => {
      const config = {
        backend: backend.name,
        connection: ns.connection,
        store: ns.storeOptions,
        queueName: ns.queueName,
        baseURL: emu.baseURL,
        concurrency: 8,
        limits: { models: { 'svc-3.5-flash': { requests: FLEET_REQUESTS } }, windowMs: WINDOW_MS },
      };
      workers.push(
        ...(await Promise.all(Array.from({ length: WORKERS }, () => spawnLimitsWorker(config, emu.apiKey)))),
      );
      const started = Date.now();
      const runIds = await Promise.all(
        Array.from({ length: RUNS }, (_, i) =>
          queue.enqueue('short', `Say hello ${i}`, { tenant: `t${i % 3}` }),
        ),
      );
      const records = await Promise.all(
        runIds.map((id) => queue.waitUntilFinished(id, { timeout: 120_000 })),
      );
      const elapsedWindows = Math.ceil((Date.now() - started) / WINDOW_MS);

      expect(records.filter((record) => record.status !== 'completed')).toEqual([]);
      // Each run is one model turn: every request beyond one per run was answered 429.
      const chatRequests = emu.requests().filter((request) => request.path === '/v1/chat/completions').length;
      const rateLimited = chatRequests - RUNS;
      // Uncoordinated workers retrying blindly get dozens per window; a fleet that pauses together a few.
      expect(rateLimited).toBeLessThanOrEqual(3 * elapsedWindows);
    }, 180_000);
  });
}
