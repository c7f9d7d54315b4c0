import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { chaosWorkerConfig } from '../helpers/spawn-chaos-worker.js';

const poisonWorker = join(import.meta.dirname, 'fixtures/poison-worker.ts');
/** Workers started one after another, each crashed by the run, before the test gives up. */
const MAX_WORKERS = 8;

const crashTurn = {
  message: { content: '', tool_calls: [{ id: 'boom', function: { name: 'crash', arguments: '{}' } }] },
};

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`a run that crashes every worker on ${backend.name}`, () => {
    let emu: Emulator;
    let ns: QueueNamespace;
    let queue: RunQueue;
    const children: ChildProcess[] = [];
    let ended = false;

    const spawnPoisonWorker = () => {
      const config = chaosWorkerConfig(backend, ns, emu, '', 1);
      const child = fork(poisonWorker, {
        execArgv: ['--import', 'tsx'],
        env: { ...process.env, CHAOS_CONFIG: JSON.stringify(config), CHAOS_API_KEY: emu.apiKey },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      children.push(child);
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      return { child, exited };
    };

    beforeEach(async () => {
      ended = false;
      emu = await startEmulator({ port: 0 });
      emu.script(Array.from({ length: MAX_WORKERS }, () => crashTurn));
      ns = backend.create();
      queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
    });
    afterEach(async () => {
      ended = true;
      for (const child of children.splice(0)) child.kill('SIGKILL');
      await queue.close();
      await ns.cleanup();
      await emu.close();
    });

    it('should be recorded failed once BullMQ gives up on it, ending its followers with an error', async () => {
      const events: AgentEvent[] = [];
      const following = (async () => {
        for await (const event of queue.events('poison-1')) events.push(event);
      })();
      await queue.enqueue('poison', 'Do the thing', { runId: 'poison-1' });
      // Two workers: the one that takes the run dies; the other finds it stalled more often than allowed
      // (here: at all) and fails it. Should both die, more are started.
      const isFailed = async () => (await queue.get('poison-1'))?.status === 'failed';
      let live = 0;
      let started = 0;
      const keepTwo = () => {
        while (!ended && live < 2 && started < MAX_WORKERS) {
          live++;
          started++;
          spawnPoisonWorker().exited.then(() => {
            live--;
            keepTwo();
          });
        }
      };
      keepTwo();
      while (!(await isFailed()) && (started < MAX_WORKERS || live > 0)) {
        // Polling worker processes' state: they report through the store, not to this process.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      console.info(`poison run on ${backend.name}: ${started} workers started`);
      const record = await queue.get('poison-1');
      expect(record?.status).toBe('failed');
      expect(record?.error).toContain('stalled more than allowable limit');
      await following;
      expect(events.at(-1)).toMatchObject({ type: 'error' });
    }, 120_000);
  });
}
