import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecordInput } from '../../src/agent/durable/store.js';
import type { GuardedStore } from '../../src/stores/guard-store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { StoreClosedError, StoreUnavailableError } from '../../src/stores/store-errors.js';
import { eventually } from '../helpers/eventually.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';
import { chunkContains, startTcpFaultProxy, type TcpFaultProxy } from '../helpers/tcp-fault-proxy.js';

const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

// Short enough that a stalled operation fails within the test's time, long enough for a loaded machine.
const COMMAND_TIMEOUT_MS = 1500;

interface FaultCase {
  name: string;
  skip: boolean;
  target: { host: string; port: number };
  /** The command text of a run update, as it crosses the wire. */
  updateCommand: string;
  open(port: number, onWarning: (message: string) => void): GuardedStore;
  cleanup(): Promise<void>;
}

const redisPrefix = `${uniqueNamespace('faults')}:`;
const postgresSchema = uniqueNamespace('faults');

const cases: FaultCase[] = [
  {
    name: 'redisStore',
    skip: !redisUp,
    target: { host: '127.0.0.1', port: Number(new URL(REDIS_URL).port || 6379) },
    updateCommand: 'eval',
    open: (port, onWarning) =>
      redisStore({
        url: `redis://127.0.0.1:${port}`,
        prefix: redisPrefix,
        commandTimeoutMs: COMMAND_TIMEOUT_MS,
        onWarning,
      }),
    async cleanup() {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${redisPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    },
  },
  {
    name: 'postgresStore',
    skip: !postgresUp,
    target: { host: '127.0.0.1', port: Number(new URL(POSTGRES_URL).port || 5432) },
    updateCommand: 'UPDATE',
    open: (port, onWarning) => {
      const url = new URL(POSTGRES_URL);
      url.port = String(port);
      // Trust authentication ignores it; no error may show it.
      url.password = 's3cret-pw';
      return postgresStore({
        connectionString: url.toString(),
        schema: postgresSchema,
        commandTimeoutMs: COMMAND_TIMEOUT_MS,
        onWarning,
      });
    },
    async cleanup() {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${postgresSchema}" CASCADE`);
      await client.end();
    },
  },
];

function runInput(id: string, overrides: Partial<RunRecordInput> = {}): RunRecordInput {
  return {
    id,
    agentName: 'support',
    status: 'running',
    state: { messages: [] },
    interruptions: [],
    ...overrides,
  };
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

for (const faultCase of cases) {
  describe.skipIf(faultCase.skip)(`${faultCase.name} under network faults`, () => {
    let proxy: TcpFaultProxy;
    let store: GuardedStore;
    let warnings: string[];
    let uncaught: unknown[];
    const onUncaught = (error: unknown) => uncaught.push(error);

    beforeAll(() => {
      process.on('uncaughtException', onUncaught);
    });
    afterAll(async () => {
      process.off('uncaughtException', onUncaught);
      await faultCase.cleanup();
    });
    const setUp = async () => {
      proxy = await startTcpFaultProxy(faultCase.target);
      warnings = [];
      uncaught = [];
      store = faultCase.open(proxy.port, (message) => warnings.push(message));
    };
    afterEach(async () => {
      await store.close();
      await proxy.close();
      expect(uncaught).toEqual([]);
    });

    it('should survive its idle connections being cut and serve the next operation', async () => {
      await setUp();
      await store.createRun(runInput('idle-1'));
      expect(proxy.openConnections).toBeGreaterThan(0);
      const before = proxy.acceptedConnections;
      proxy.resetAll();
      // The store's connections were idle: nothing awaited them, so only an 'error' listener stands
      // between the reset and a crashed process.
      await eventually(async () => warnings.length > 0 || proxy.acceptedConnections > before);
      expect((await store.getRun('idle-1'))?.id).toBe('idle-1');
      expect(uncaught).toEqual([]);
    });

    it('should fail a stalled operation with a transient error after commandTimeoutMs, then recover', async () => {
      await setUp();
      await store.createRun(runInput('stall-1'));
      proxy.stall();
      const error = await rejectionOf(store.getRun('stall-1'));
      expect(StoreUnavailableError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ transient: true, store: faultCase.name, operation: 'getRun' });
      // The timed-out connection may be half-open: it is replaced, not trusted with the next operation.
      const accepted = proxy.acceptedConnections;
      expect(StoreUnavailableError.isInstance(await rejectionOf(store.getRun('stall-1')))).toBe(true);
      await eventually(async () => proxy.acceptedConnections > accepted, 10_000);
      proxy.resume();
      await eventually(async () => {
        const read = await store.getRun('stall-1').catch(() => undefined);
        return read?.id === 'stall-1';
      }, 20_000);
    });

    it('should fail with a transient error while the server refuses connections', async () => {
      await setUp();
      await store.createRun(runInput('refused-1'));
      proxy.setRefusing(true);
      proxy.resetAll();
      const error = await rejectionOf(store.getRun('refused-1'));
      expect(StoreUnavailableError.isInstance(error)).toBe(true);
      expect(`${(error as Error).message} ${JSON.stringify(error)}`).not.toContain('s3cret-pw');
      proxy.setRefusing(false);
      await eventually(
        async () => (await store.getRun('refused-1').catch(() => undefined)) !== undefined,
        20_000,
      );
    });

    it('should recognise its own update when the reply to it was lost', async () => {
      await setUp();
      await store.createRun(runInput('lost-1'));
      const dropped = proxy.dropReplyTo(chunkContains(faultCase.updateCommand));
      const updated = await store.updateRun(
        'lost-1',
        1,
        runInput('lost-1', { status: 'completed', text: 'done' }),
      );
      await dropped;
      expect(updated.version).toBe(2);
      const read = await store.getRun('lost-1');
      expect(read).toMatchObject({ version: 2, status: 'completed', text: 'done', writeId: updated.writeId });
      // Someone else's write at that version is still a conflict.
      await expect(store.updateRun('lost-1', 1, runInput('lost-1'))).rejects.toMatchObject({
        name: 'RunConflictError',
      });
    });

    it('should recognise its own creation when the reply to it was lost', async () => {
      await setUp();
      await store.getRun('warm-up');
      const dropped = proxy.dropReplyTo(chunkContains(faultCase.name === 'redisStore' ? 'eval' : 'INSERT'));
      const created = await store.createRun(runInput('lost-create'));
      await dropped;
      expect(created.version).toBe(1);
      expect((await store.getRun('lost-create'))?.writeId).toBe(created.writeId);
    });

    it('should refuse every operation after close and never reconnect', async () => {
      await setUp();
      await store.createRun(runInput('closed-1'));
      await store.close();
      const accepted = proxy.acceptedConnections;
      const operations: [string, () => Promise<unknown>][] = [
        ['getRun', () => store.getRun('closed-1')],
        ['createRun', () => store.createRun(runInput('closed-2'))],
        ['updateRun', () => store.updateRun('closed-1', 1, runInput('closed-1'))],
        ['listRuns', () => store.listRuns()],
        ['deleteRun', () => store.deleteRun('closed-1')],
        ['pruneRuns', () => store.pruneRuns()],
        ['getItems', () => store.getItems('s')],
        ['addItems', () => store.addItems('s', [{ role: 'user', content: 'x' }])],
        ['popItem', () => store.popItem('s')],
        ['clearSession', () => store.clearSession('s')],
      ];
      for (const [operation, call] of operations) {
        const error = await rejectionOf(call());
        expect(StoreClosedError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ operation, transient: false });
      }
      expect(proxy.acceptedConnections).toBe(accepted);
    });
  });
}

describe.skipIf(!postgresUp)('postgresStore when PostgreSQL terminates its backends', () => {
  const schema = uniqueNamespace('terminated');
  const applicationName = uniqueNamespace('app');
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  beforeAll(async () => {
    process.on('uncaughtException', onUncaught);
    await admin.connect();
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it('should log the loss of its idle connections and serve the next operation on new ones', async () => {
    const warnings: string[] = [];
    const store = postgresStore({
      config: { connectionString: POSTGRES_URL, application_name: applicationName },
      schema,
      onWarning: (message) => warnings.push(message),
    });
    try {
      await Promise.all([store.createRun(runInput('t-1')), store.getRun('t-1'), store.listRuns()]);
      // Only this store's own backends, found by the application name it was given.
      const { rowCount } = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [applicationName],
      );
      expect(rowCount).toBeGreaterThan(0);
      await eventually(async () => warnings.length > 0);
      expect(warnings[0]).toContain('postgresStore');
      expect((await store.getRun('t-1'))?.id).toBe('t-1');
      expect(uncaught).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
