import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { Store, StoredRunEvent } from '../../src/agent/durable/store.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import type { QueueConnection } from '../../src/queue/queue-connection.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { eventsChannel } from '../../src/stores/run-events-signal.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { eventually } from '../helpers/eventually.js';
import { queueBackends } from '../helpers/queue-backends.js';

const toolTurn = (id: string, name: string) => ({
  message: { content: '', tool_calls: [{ id, function: { name, arguments: '{}' } }] },
});

async function readLog(store: Store, runId: string): Promise<StoredRunEvent[]> {
  if (!store.readRunEvents) throw new Error('the store keeps no run event log');
  return store.readRunEvents(runId);
}

const typesOf = (log: StoredRunEvent[]) => log.map((event) => (JSON.parse(event.data) as AgentEvent).type);

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`a worker's run event log on ${backend.name}`, () => {
    let emu: Emulator;
    let client: SvcClient;
    let ns: { connection: QueueConnection; queueName: string; store: Store; cleanup(): Promise<void> };
    let queue: RunQueue;
    const workers: RunWorker[] = [];
    let release: (() => void) | undefined;
    const createAgent = () =>
      new Agent({
        client,
        model: 'svc-3.5-flash',
        tools: [
          defineTool({
            name: 'lookup',
            description: 'Looks up an order.',
            parameters: z.object({}),
            execute: () => 'order 42: shipped',
          }),
          defineTool({
            name: 'wait_for_release',
            description: 'Waits until the test lets it go.',
            parameters: z.object({}),
            execute: (_args, ctx) =>
              new Promise<string>((resolve, reject) => {
                release = () => resolve('released');
                ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
              }),
          }),
        ],
      });
    const startTheWorker = async () => {
      const worker = await startWorker({
        connection: ns.connection,
        store: ns.store,
        name: ns.queueName,
        agents: { support: createAgent() },
        handleSignals: false,
      });
      workers.push(worker);
      return worker;
    };

    beforeEach(async () => {
      release = undefined;
      emu = await startEmulator({ port: 0 });
      client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      ns = backend.create();
      queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName, attempts: 1 });
    });
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((worker) => worker.close(true)));
      await queue.close();
      await ns.cleanup();
      await client.close();
      await emu.close();
    });

    it('should append every event with ids from 0, as queue.events relays them, and signal each batch', async () => {
      emu.script([toolTurn('c1', 'lookup'), { message: { content: 'Your order shipped yesterday.' } }]);
      await startTheWorker();
      const signals: string[] = [];
      const unsubscribe = await ns.store.onSignal!(eventsChannel('r1'), (message) => signals.push(message));
      const relayed: AgentEvent[] = [];
      const following = (async () => {
        for await (const event of queue.events('r1')) relayed.push(event);
      })();

      await queue.enqueue('support', 'Where is order 42?', { runId: 'r1' });
      await queue.waitUntilFinished('r1');
      await following;
      await eventually(
        async () => (await readLog(ns.store, 'r1')).at(-1)?.data.includes('"finish"') === true,
      );
      const log = await readLog(ns.store, 'r1');

      expect(log.map((event) => event.id)).toEqual(log.map((_, index) => index));
      expect(typesOf(log)).toEqual(relayed.map((event) => event.type));
      expect(typesOf(log)[0]).toBe('start');
      expect(typesOf(log)).toContain('tool-result');
      expect(typesOf(log).at(-1)).toBe('finish');
      // Each batch announced with its last id first, then the end once the outcome is recorded.
      await eventually(async () => signals.at(-1) === 'end');
      expect(signals.at(-2)?.split('\n')[0]).toBe(String(log.length - 1));
      await unsubscribe();
    });

    // Two workers start and a run changes hands: generous on a loaded machine.
    it('should continue the ids of a run another worker takes over, without a gap or a duplicate', {
      timeout: 90_000,
    }, async () => {
      emu.script([
        toolTurn('w1', 'wait_for_release'),
        toolTurn('w2', 'wait_for_release'),
        { message: { content: 'Done after the takeover.' } },
      ]);
      const first = await startTheWorker();
      await queue.enqueue('support', 'Wait, then answer', { runId: 'r2' });
      await eventually(async () => release !== undefined, 30_000);
      // Events reach the log in batches: read it once it holds them up to the running tool's call.
      await eventually(async () => typesOf(await readLog(ns.store, 'r2')).includes('tool-call'), 15_000);
      const before = await readLog(ns.store, 'r2');

      // The first worker goes away mid-tool; its run resumes elsewhere from the checkpoint.
      await first.close(true);
      release = undefined;
      await startTheWorker();
      await eventually(async () => release !== undefined, 30_000);
      release!();
      const record = await queue.waitUntilFinished('r2', { timeout: 30_000 });
      await eventually(
        async () => (await readLog(ns.store, 'r2')).at(-1)?.data.includes('"finish"') === true,
        15_000,
      );
      const log = await readLog(ns.store, 'r2');

      expect(record.status).toBe('completed');
      expect(before.length).toBeGreaterThan(0);
      expect(log.slice(0, before.length)).toEqual(before);
      expect(log.map((event) => event.id)).toEqual(log.map((_, index) => index));
      expect(typesOf(log).filter((type) => type === 'start')).toHaveLength(2);
      expect(typesOf(log).at(-1)).toBe('finish');
    });
  });
}
