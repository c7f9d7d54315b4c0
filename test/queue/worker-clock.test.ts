import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
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
});
