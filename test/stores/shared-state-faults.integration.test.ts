import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GuardedStore } from '../../src/stores/guard-store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { StoreUnavailableError } from '../../src/stores/store-errors.js';
import { eventually } from '../helpers/eventually.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';
import { chunkContains, startTcpFaultProxy, type TcpFaultProxy } from '../helpers/tcp-fault-proxy.js';

const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

// Short enough that a failed operation fails within the test's time, long enough for a loaded machine.
const COMMAND_TIMEOUT_MS = 1500;

interface FaultCase {
  name: 'redisStore' | 'postgresStore';
  skip: boolean;
  target: { host: string; port: number };
  /** Text of the append command as it crosses the wire. */
  appendCommand: string;
  /** A store whose every connection goes through the proxy on `port`. */
  open(port: number, onWarning: (message: string) => void): GuardedStore;
  /** A store on the same namespace reaching the service directly. */
  openDirect(): GuardedStore;
  cleanup(): Promise<void>;
}

const redisPrefix = `${uniqueNamespace('shared_faults')}:`;
const postgresSchema = uniqueNamespace('shared_faults');

const cases: FaultCase[] = [
  {
    name: 'redisStore',
    skip: !redisUp,
    target: { host: '127.0.0.1', port: Number(new URL(REDIS_URL).port || 6379) },
    appendCommand: 'events:',
    open: (port, onWarning) =>
      redisStore({
        url: `redis://127.0.0.1:${port}`,
        prefix: redisPrefix,
        commandTimeoutMs: COMMAND_TIMEOUT_MS,
        onWarning,
      }),
    openDirect: () => redisStore({ url: REDIS_URL, prefix: redisPrefix }),
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
    appendCommand: 'inserted AS',
    open: (port, onWarning) => {
      const url = new URL(POSTGRES_URL);
      url.port = String(port);
      return postgresStore({
        connectionString: url.toString(),
        schema: postgresSchema,
        commandTimeoutMs: COMMAND_TIMEOUT_MS,
        config: { max: 4 },
        onWarning,
      });
    },
    openDirect: () =>
      postgresStore({ connectionString: POSTGRES_URL, schema: postgresSchema, config: { max: 2 } }),
    async cleanup() {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${postgresSchema}" CASCADE`);
      await client.end();
    },
  },
];

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

for (const faultCase of cases) {
  describe.skipIf(faultCase.skip)(`${faultCase.name} shared state under network faults`, () => {
    let proxy: TcpFaultProxy;
    let store: GuardedStore;
    let direct: GuardedStore;
    let warnings: string[];
    let uncaught: unknown[];
    const onUncaught = (error: unknown) => uncaught.push(error);

    beforeAll(async () => {
      process.on('uncaughtException', onUncaught);
      direct = faultCase.openDirect();
      // Migrates the namespace before any fault.
      await direct.getValue('warm-up');
    });
    afterAll(async () => {
      process.off('uncaughtException', onUncaught);
      await direct.close();
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

    it('should listen again after its signal connection is reset, and deliver later signals', async () => {
      await setUp();
      const received: string[] = [];
      await store.onSignal('faults-resubscribe', (message) => received.push(message));
      await direct.signal('faults-resubscribe', 'before');
      await eventually(async () => received.includes('before'));
      const accepted = proxy.acceptedConnections;
      proxy.resetAll();
      // Signals sent while it reconnects are lost (the interface says so): keep sending until one arrives.
      let sent = 0;
      await eventually(async () => {
        await direct.signal('faults-resubscribe', `after-${sent++}`);
        return received.some((message) => message.startsWith('after-'));
      }, 20_000);
      expect(proxy.acceptedConnections).toBeGreaterThan(accepted);
      // Every message is delivered at most once, in the order sent.
      const after = received.filter((message) => message.startsWith('after-'));
      expect(new Set(after).size).toBe(after.length);
      expect(after).toEqual([...after].sort((a, b) => Number(a.slice(6)) - Number(b.slice(6))));
      // The store's other operations work too.
      expect(await store.setValueIf('faults-after-reset', 0, 'x')).toBe(true);
    });

    it('should replace a signal connection that stopped answering (half-open) and deliver later signals', async () => {
      await setUp();
      const received: string[] = [];
      await store.onSignal('faults-half-open', (message) => received.push(message));
      const accepted = proxy.acceptedConnections;
      // Every socket stays open and silent: no reset, no error, only the health check can tell.
      proxy.stall();
      await eventually(async () => proxy.acceptedConnections > accepted, 15_000);
      proxy.resume();
      let sent = 0;
      await eventually(async () => {
        await direct.signal('faults-half-open', `after-${sent++}`);
        return received.length > 0;
      }, 20_000);
      expect(received[0]).toMatch(/^after-/);
    }, 45_000);

    it('should not duplicate events when an append whose reply was lost is retried with the same ids', async () => {
      await setUp();
      await store.appendRunEvents('faults-append', 0, ['e0', 'e1']);
      const dropped = proxy.dropReplyTo(chunkContains(faultCase.appendCommand));
      // The first attempt may fail (the reply is lost) or succeed (the store re-sent it itself).
      const first = await store.appendRunEvents('faults-append', 2, ['e2', 'e3']).then(
        () => undefined,
        (error: unknown) => error,
      );
      await dropped;
      if (first !== undefined) expect(StoreUnavailableError.isInstance(first)).toBe(true);
      await eventually(async () =>
        store.appendRunEvents('faults-append', 2, ['e2', 'e3']).then(
          () => true,
          () => false,
        ),
      );
      await store.appendRunEvents('faults-append', 3, ['e3', 'e4']);
      expect(await direct.readRunEvents('faults-append')).toEqual([
        { id: 0, data: 'e0' },
        { id: 1, data: 'e1' },
        { id: 2, data: 'e2' },
        { id: 3, data: 'e3' },
        { id: 4, data: 'e4' },
      ]);
    });

    it('should fail the shared-state operations with a transient error while the server refuses connections', async () => {
      await setUp();
      await store.setValueIf('faults-refused', 0, 'kept');
      proxy.setRefusing(true);
      proxy.resetAll();
      const operations: [string, () => Promise<unknown>][] = [
        ['getValue', () => store.getValue('faults-refused')],
        ['setValueIf', () => store.setValueIf('faults-refused', 1, 'lost')],
        ['appendRunEvents', () => store.appendRunEvents('faults-refused', 0, ['e0'])],
        ['readRunEvents', () => store.readRunEvents('faults-refused')],
        ['signal', () => store.signal('faults-refused', 'lost')],
      ];
      for (const [operation, call] of operations) {
        const error = await rejectionOf(call());
        expect(StoreUnavailableError.isInstance(error), operation).toBe(true);
        expect(error).toMatchObject({ transient: true, store: faultCase.name, operation });
      }
      proxy.setRefusing(false);
      // A write that failed this way may still be applied (a client's offline queue sends it on reconnect).
      await eventually(
        async () =>
          ['kept', 'lost'].includes(
            (await store.getValue('faults-refused').catch(() => undefined))?.value ?? '',
          ),
        20_000,
      );
      // Each refused Redis command waits out commandTimeoutMs while the client retries connecting.
    }, 45_000);

    it('should release its signal connection on close', async () => {
      await setUp();
      await store.onSignal('faults-close', () => {});
      await store.getValue('faults-close');
      expect(proxy.openConnections).toBeGreaterThan(0);
      await store.close();
      await eventually(async () => proxy.openConnections === 0);
    });
  });
}
