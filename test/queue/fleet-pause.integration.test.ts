import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { eventually } from '../helpers/eventually.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { spawnLimitsWorker, stopWorker } from '../helpers/spawn-limits-worker.js';
import { answer } from '../helpers/tool-turn.js';

const LATER_RUNS = 4;

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`the first 429 on ${backend.name}, workers without limits`, () => {
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

    it("should pause the model on every worker before their next request, until the 429's Retry-After", async () => {
      // The counters are per minute (the default window): the scenario, about 10 s, stays in one.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_100 - intoMinute));
      emu = await startEmulator({ port: 0 });
      // The first request is refused for 5 s; every later one is answered.
      emu.script([
        { error: { status: 429, headers: { 'retry-after': '5' } } },
        ...Array.from({ length: LATER_RUNS + 1 }, () => answer('Hello.')),
      ]);
      ns = backend.create();
      queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
      const config = {
        backend: backend.name,
        connection: ns.connection,
        store: ns.storeOptions,
        queueName: ns.queueName,
        baseURL: emu.baseURL,
        concurrency: 4,
      };
      workers.push(...(await Promise.all([1, 2].map(() => spawnLimitsWorker(config, emu!.apiKey)))));
      const first = await queue.enqueue('short', 'Say hello');
      const counted = async () => (await queue!.stats()).rows.find((row) => row.model === 'svc-3.5-flash');
      // The 429 is counted once its pause is stored for the fleet.
      await eventually(async () => ((await counted())?.rateLimited ?? 0) >= 1, 20_000);
      const later = await Promise.all(
        Array.from({ length: LATER_RUNS }, (_, i) => queue!.enqueue('short', `Say hello ${i}`)),
      );
      for (const id of [first, ...later]) {
        expect((await queue.waitUntilFinished(id, { timeout: 30_000 })).status).toBe('completed');
      }
      // Each later run, on either worker, waited for the pause instead of meeting the 429 itself.
      const { rateLimited, waits, requests } = (await counted())!;
      expect({ rateLimited, waits, requests }).toEqual({
        rateLimited: 1,
        waits: LATER_RUNS,
        requests: LATER_RUNS + 1,
      });
      expect(emu.requests().filter((request) => request.path === '/v1/chat/completions')).toHaveLength(
        LATER_RUNS + 2,
      );
    }, 90_000);
  });
}
