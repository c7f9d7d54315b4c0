import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { chaosWorkerConfig, spawnWorker } from '../helpers/spawn-chaos-worker.js';

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`a worker on ${backend.name} sent SIGTERM`, () => {
    let emu: Emulator;
    let dir: string;
    let ns: QueueNamespace;
    let child: ChildProcess | undefined;
    beforeAll(async () => {
      emu = await startEmulator({ port: 0 });
      dir = await mkdtemp(join(tmpdir(), 'svc-sigterm-'));
      ns = backend.create();
    });
    afterAll(async () => {
      child?.kill('SIGKILL');
      await ns?.cleanup();
      await emu?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('should finish the runs it is working on, then exit 0', async () => {
      const log = join(dir, 'tools.log');
      const config = chaosWorkerConfig(backend, ns, emu, log, 2);
      const turn = {
        message: {
          content: '',
          tool_calls: ['slow_write'].map((name) => ({ function: { name, arguments: '{}' } })),
        },
      };
      emu.script([turn, turn, turn]);
      const worker = await spawnWorker(config, emu.apiKey);
      child = worker;
      const queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
      try {
        const runId = await queue.enqueue('chaos', 'Write it');
        await expect
          .poll(async () => (await readFile(log, 'utf8').catch(() => '')).includes('start'), {
            timeout: 15_000,
          })
          .toBe(true);
        const exited = new Promise<number | null>((resolve) => worker.once('exit', resolve));
        worker.kill('SIGTERM');
        expect(await exited).toBe(0);
        // The run went on to its end inside the shutdown: three tool turns, nothing left for another worker.
        const record = await queue.get(runId);
        expect(record?.status).toBe('completed');
        const lines = (await readFile(log, 'utf8')).trim().split('\n');
        expect(lines.filter((line) => line.includes('"end"'))).toHaveLength(3);
      } finally {
        await queue.close();
      }
    }, 30_000);
  });
}
