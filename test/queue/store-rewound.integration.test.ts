import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { createDurableTool } from '../helpers/create-durable-tool.js';
import { POSTGRES_URL, REDIS_URL } from '../helpers/infra-services.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { answer, toolTurn } from '../helpers/tool-turn.js';

const signal = () => {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fire, fired };
};

/** Takes a snapshot of one run's stored record, and puts it back later (an older snapshot restored). */
async function snapshotRun(backend: 'redis' | 'postgres', ns: QueueNamespace, runId: string) {
  if (backend === 'redis') {
    const redis = new Redis(REDIS_URL);
    const key = `${ns.storeOptions.prefix}run:${runId}`;
    const dump = (await redis.dumpBuffer(key))!;
    return async () => {
      await redis.restore(key, 0, dump, 'REPLACE');
      await redis.quit();
    };
  }
  const db = new pg.Client({ connectionString: POSTGRES_URL });
  await db.connect();
  const schema = `"${ns.storeOptions.schema}"`;
  await db.query(`CREATE TABLE ${schema}.snapshot AS SELECT * FROM ${schema}.runs WHERE id = $1`, [runId]);
  return async () => {
    await db.query(`DELETE FROM ${schema}.runs WHERE id = $1`, [runId]);
    await db.query(`INSERT INTO ${schema}.runs SELECT * FROM ${schema}.snapshot`);
    await db.end();
  };
}

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`a store that goes back in time on ${backend.name} (D10)`, () => {
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

    it('should stop the run instead of resuming it from the older checkpoint and charging again', async () => {
      emu = await startEmulator({ port: 0 });
      emu.script([
        toolTurn(['c1', 'charge']),
        toolTurn(['c2', 'charge']),
        answer('Done.'),
        toolTurn(['c3', 'charge']),
        answer('Done again.'),
      ]);
      client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      ns = backend.create();
      const first = signal();
      const second = signal();
      const restored = signal();
      const charge = createDurableTool('charge', {
        execute: async (ctx) => {
          if (ctx.toolCallId === 'c1') first.fire();
          if (ctx.toolCallId === 'c2') {
            second.fire();
            await restored.fired;
          }
          return 'charged';
        },
      });
      worker = await startWorker({
        connection: ns.connection,
        store: ns.store,
        name: ns.queueName,
        agents: { support: new Agent({ client, model: 'svc-3.5-flash', tools: [charge.tool] }) },
        handleSignals: false,
        strandedRunCheckMs: 0,
      });
      queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
      const runId = await queue.enqueue('support', 'Charge twice');
      // A snapshot while the first charge runs; the store is put back to it during the second.
      await first.fired;
      const restore = await snapshotRun(backend.name, ns, runId);
      await second.fired;
      await restore();
      restored.fire();
      const record = await queue.waitUntilFinished(runId, { timeout: 30_000 });
      expect(record.status).toBe('failed');
      expect(record.error).toContain('StoreRewoundError');
      // c1 and c2 ran once each; resuming from the snapshot would have run the model and c3.
      expect(charge.runs.map((ctx) => ctx.toolCallId)).toEqual(['c1', 'c2']);
    }, 60_000);
  });
}
