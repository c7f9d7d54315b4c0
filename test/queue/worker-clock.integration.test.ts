import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { RunQueue } from '../../src/queue/run-queue.js';
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

  it('should take no run while its clock is an hour off after the start, report it, and take runs again once it is back', async () => {
    ns = postgres.create();
    const { schema } = ns.connection as { schema: string };
    const JUMP_AFTER_MS = 2_500;
    const JUMP_FOR_MS = 3_000;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        join(fixtures, 'clock-offset.mjs'),
        join(fixtures, 'clock-jump-worker.ts'),
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: {
          ...process.env,
          CLOCK_OFFSET_MS: '3600000',
          CLOCK_JUMP_AFTER_MS: String(JUMP_AFTER_MS),
          CLOCK_JUMP_FOR_MS: String(JUMP_FOR_MS),
          CLOCK_WORKER: JSON.stringify({
            connection: ns.connection,
            queueName: ns.queueName,
            store: ns.storeOptions,
          }),
        },
      },
    );
    const lines: Array<Record<string, number | string | boolean>> = [];
    createInterface({ input: child.stdout! }).on('line', (line) => lines.push(JSON.parse(line)));
    const queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
    const db = new pg.Client({ connectionString: POSTGRES_URL });
    await db.connect();
    try {
      await eventually(async () => lines.some((line) => line.ready), 30_000);
      await eventually(async () => lines.some((line) => 'skewed' in line), 30_000);
      // Queued while the clock is off: a worker an hour ahead would take live runs from healthy workers.
      const runId = await queue.enqueue('nobody', 'Hello');
      await eventually(async () => lines.some((line) => line.took === runId), 30_000);

      const skewed = lines.find((line) => 'skewed' in line)!;
      expect(Number(skewed.skewed)).toBeGreaterThan(3_500_000);
      const took = lines.find((line) => line.took === runId)!;
      expect(Number(took.atMs)).toBeGreaterThanOrEqual(JUMP_AFTER_MS + JUMP_FOR_MS);
      // Whatever the jump stored as the stalled-check time is not left in the future.
      const stored = async () =>
        Number(
          (
            await db.query<{ value: string }>(
              `SELECT value FROM "${schema}".meta WHERE queue = $1 AND field = 'stalled-check'`,
              [ns!.queueName],
            )
          ).rows[0]?.value ?? 0,
        );
      await eventually(async () => (await stored()) < Date.now() + 60_000, 10_000);
    } finally {
      child.kill('SIGKILL');
      await db.end();
      await queue.close();
    }
  }, 90_000);
});
