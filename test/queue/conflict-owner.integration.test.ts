import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import { RunState } from '../../src/agent/run-state.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { createDurableTool } from '../helpers/create-durable-tool.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { answer, toolTurn } from '../helpers/tool-turn.js';

const signal = () => {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fire, fired };
};

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`a worker whose claim conflicts on ${backend.name} (D6)`, () => {
    let emu: Emulator | undefined;
    let ns: QueueNamespace | undefined;
    let queue: RunQueue | undefined;
    let worker: RunWorker | undefined;
    let client: SvcClient | undefined;
    afterEach(async () => {
      await worker?.close(true);
      await queue?.close();
      await ns?.cleanup();
      await client?.close();
      await emu?.close();
    });

    it('should leave the run to the process that claimed it, even while its tool writes nothing', async () => {
      emu = await startEmulator({ port: 0 });
      emu.script([
        toolTurn(['c1', 'charge']),
        answer('Charged.'),
        toolTurn(['c2', 'charge']),
        answer('Again.'),
      ]);
      client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      ns = backend.create();
      const store = ns.store;
      const charging = signal();
      const release = signal();
      const charge = createDurableTool('charge', {
        execute: async () => {
          charging.fire();
          await release.fired;
          return 'charged';
        },
      });
      const agent = new Agent({ client, model: 'svc-3.5-flash', tools: [charge.tool] });
      await store.createRun({
        id: 'shared',
        agentName: 'support',
        status: 'running',
        state: new RunState({ messages: [{ role: 'user', content: 'Charge my card' }] }).toJSON() as never,
        interruptions: [],
      });
      // The worker's claim of the run waits until another process has claimed it and started its tool.
      const claiming = signal();
      const gate = signal();
      let workerClaims = 0;
      const hooked: Store = {
        ...store,
        updateRun: async (id, version, record, options) => {
          if (id === 'shared' && ++workerClaims === 1) {
            claiming.fire();
            await gate.fired;
          }
          return store.updateRun(id, version, record, options);
        },
      };
      const released = signal();
      worker = await startWorker({
        connection: ns.connection,
        store: hooked,
        name: ns.queueName,
        agents: { support: agent },
        handleSignals: false,
        strandedRunCheckMs: 0,
        observeRun: async () => ({ onRelease: async () => released.fire() }),
      });
      queue = new RunQueue({ connection: ns.connection, store, name: ns.queueName });
      expect(await queue.requeueStranded({ olderThanMs: 0 })).toEqual(['shared']);
      await claiming.fired;
      // Another process resumes the run directly and starts a charge that writes nothing for a while.
      const direct = agent.resume('shared', { store });
      await charging.fired;
      gate.fire();
      // The worker's claim conflicted; its job ended.
      await released.fired;
      await worker.close();
      // It gave the run up rather than queue itself to resume it in the middle of the charge.
      expect(workerClaims).toBe(1);
      expect(await queue.requeueStranded({ olderThanMs: 0 })).toEqual(['shared']);
      release.fire();
      expect((await direct).status).toBe('completed');
      expect(charge.runs).toHaveLength(1);
    }, 60_000);
  });
}
