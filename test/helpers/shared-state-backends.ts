import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Store } from '../../src/agent/durable/store.js';
import { fileStore } from '../../src/stores/file-store.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import type { StoreOptions } from '../../src/stores/store-options.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from './infra-services.js';
import { createTestClock } from './test-clock.js';

const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

/** Two store objects on one backend (the views of two processes), and how to remove what they wrote. */
export interface OpenedSharedState {
  a: Store;
  b: Store;
  /**
   * Lets `ms` pass for the stores' expiries: memoryStore and fileStore read a test clock, moved at once;
   * Redis and PostgreSQL expire keys and rows by their server's clock, so for them this waits for real.
   */
  passTime(ms: number): Promise<void>;
  cleanup(): Promise<void>;
}

/** A backend the shared-state contract (event logs, signals, values) runs on. */
export interface SharedStateBackend {
  name: string;
  available: boolean;
  open(options: Pick<StoreOptions, 'onWarning'>): Promise<OpenedSharedState>;
}

/** Every bundled store; memoryStore shares state only within one object, so both views are that object. */
export const sharedStateBackends: SharedStateBackend[] = [
  {
    name: 'memoryStore',
    available: true,
    async open(options) {
      const clock = createTestClock();
      const store = memoryStore({ ...options, clock });
      return { a: store, b: store, passTime: clock.sleep, cleanup: () => store.close() };
    },
  },
  {
    name: 'fileStore',
    available: true,
    async open(options) {
      const dir = await mkdtemp(join(tmpdir(), 'svc-shared-state-'));
      const clock = createTestClock();
      const a = fileStore({ dir, fsync: false, clock, ...options });
      const b = fileStore({ dir, fsync: false, clock, ...options });
      return {
        a,
        b,
        passTime: clock.sleep,
        async cleanup() {
          await Promise.all([a.close(), b.close()]);
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'redisStore',
    available: redisUp,
    async open(options) {
      const prefix = `${uniqueNamespace('shared')}:`;
      const a = redisStore({ url: REDIS_URL, prefix, ...options });
      const b = redisStore({ url: REDIS_URL, prefix, ...options });
      return {
        a,
        b,
        passTime: (ms) => sleep(ms),
        async cleanup() {
          await Promise.all([a.close(), b.close()]);
          const redis = new Redis(REDIS_URL);
          const keys = await redis.keys(`${prefix}*`);
          if (keys.length > 0) await redis.del(...keys);
          await redis.quit();
        },
      };
    },
  },
  {
    name: 'postgresStore',
    available: postgresUp,
    async open(options) {
      const schema = uniqueNamespace('shared');
      const a = postgresStore({ connectionString: POSTGRES_URL, schema, config: { max: 4 }, ...options });
      const b = postgresStore({ connectionString: POSTGRES_URL, schema, config: { max: 4 }, ...options });
      return {
        a,
        b,
        passTime: (ms) => sleep(ms),
        async cleanup() {
          await Promise.all([a.close(), b.close()]);
          const client = new pg.Client({ connectionString: POSTGRES_URL });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await client.end();
        },
      };
    },
  },
];
