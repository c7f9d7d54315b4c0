import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startWorker } from '../../src/queue/start-worker.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { eventually } from '../helpers/eventually.js';
import { POSTGRES_URL } from '../helpers/infra-services.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';

const run = promisify(execFile);
const fixtures = join(import.meta.dirname, 'fixtures');
const postgres = queueBackends.find((backend) => backend.name === 'postgres')!;

describe.skipIf(!postgres.available)('a worker on the PostgreSQL queue whose clock is off (D4)', () => {
  let ns: QueueNamespace | undefined;
  afterEach(async () => {
    await ns?.cleanup();
  });

  const startWith = async (offsetMs: number) => {
    ns ??= postgres.create();
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', '--import', join(fixtures, 'clock-offset.mjs'), join(fixtures, 'clock-worker.ts')],
      {
        env: {
          ...process.env,
          CLOCK_OFFSET_MS: String(offsetMs),
          CLOCK_WORKER: JSON.stringify({ connection: ns.connection, queueName: ns.queueName }),
        },
      },
    );
    return JSON.parse(stdout);
  };

  it('should refuse to start a worker 60 s ahead or behind the database, naming the skew', async () => {
    const ahead = await startWith(60_000);
    expect(ahead).toMatchObject({ started: false, name: 'WorkerClockSkewError' });
    expect(ahead.message).toMatch(/clock is \d+ ms ahead of the PostgreSQL queue's \(at most 5000 ms/);
    expect(ahead.skewMs).toBeGreaterThan(55_000);
    const behind = await startWith(-60_000);
    expect(behind).toMatchObject({ started: false, name: 'WorkerClockSkewError' });
    expect(behind.message).toContain('behind');
  });

  it('should start a worker whose clock agrees with the database', async () => {
    expect(await startWith(0)).toEqual({ started: true });
  });

  it("should take back a stalled-check time a jumping clock stored an hour ahead, so dead workers' runs are found", async () => {
    ns ??= postgres.create();
    const { schema } = ns.connection as { schema: string };
    const worker = await startWorker({
      connection: ns.connection,
      store: memoryStore(),
      name: ns.queueName,
      agents: {},
      handleSignals: false,
      strandedRunCheckMs: 0,
      stalledIntervalMs: 200,
    });
    const db = new pg.Client({ connectionString: POSTGRES_URL });
    await db.connect();
    try {
      // What a worker whose clock was an hour ahead for a moment leaves behind.
      const ahead = Date.now() + 3_600_000;
      const stored = async () =>
        (
          await db.query<{ value: string }>(
            `SELECT value FROM "${schema}".meta WHERE queue = $1 AND field = 'stalled-check'`,
            [ns!.queueName],
          )
        ).rows[0]?.value;
      await eventually(async () => (await stored()) !== undefined);
      await db.query(`UPDATE "${schema}".meta SET value = $2 WHERE queue = $1 AND field = 'stalled-check'`, [
        ns.queueName,
        String(ahead),
      ]);
      // BullMQ's own check would not run again for an hour: the worker removes the future time, and the
      // check runs (and stores the present) again.
      await eventually(async () => Number((await stored()) ?? ahead) < ahead - 3_000_000, 10_000);
    } finally {
      await db.end();
      await worker.close();
    }
  });
});
