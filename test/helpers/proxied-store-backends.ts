import { Redis } from 'ioredis';
import pg from 'pg';
import type { Store } from '../../src/agent/durable/store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from './infra-services.js';
import { type ChunkMatcher, startTcpFaultProxy, type TcpFaultProxy } from './tcp-fault-proxy.js';

/** A store whose every connection goes through a fault proxy to the shared Redis or PostgreSQL. */
export interface ProxiedStore {
  store: Store;
  /** A store on the same namespace reaching the service directly: reads and writes no fault touches. */
  directStore: Store;
  proxy: TcpFaultProxy;
  /** Reads the shared service directly (not through the proxy), in this store's namespace. */
  direct: { redis?: Redis; postgres?: pg.Client; prefix: string; schema: string };
  /** Closes the store and the proxy, and removes everything the store wrote. */
  cleanup(): Promise<void>;
}

/** One backend the store-fault tests run on. */
export interface ProxiedStoreBackend {
  name: 'redis' | 'postgres';
  available: boolean;
  /**
   * How many times the store sends one write whose connection was cut: the PostgreSQL store repeats it on a
   * fresh connection (a lost connection is healed within the operation), this Redis client does not. A
   * fault meant to fail the write must cut every attempt.
   */
  writeAttempts: number;
  open(): Promise<ProxiedStore>;
}

const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

function targetOf(url: string, defaultPort: number) {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || defaultPort) };
}

/**
 * Redis and PostgreSQL stores behind a TCP fault proxy. The Redis client fails a command whose connection
 * dropped instead of re-sending it (`maxRetriesPerRequest: 0`), the way a store error reaches a run; the
 * PostgreSQL pool is the test's own, with an `'error'` listener, so a cut idle connection is only logged.
 */
export const proxiedStoreBackends: ProxiedStoreBackend[] = [
  {
    name: 'redis',
    available: redisUp,
    writeAttempts: 1,
    async open() {
      const proxy = await startTcpFaultProxy(targetOf(REDIS_URL, 6379));
      const prefix = `${uniqueNamespace('faults')}:`;
      const store = redisStore({
        options: { host: '127.0.0.1', port: proxy.port, maxRetriesPerRequest: 0 },
        prefix,
      });
      const redis = new Redis(REDIS_URL);
      const directStore = redisStore({ url: REDIS_URL, prefix });
      return {
        store,
        directStore,
        proxy,
        direct: { redis, prefix, schema: '' },
        async cleanup() {
          await store.close?.().catch(() => undefined);
          await directStore.close?.();
          await proxy.close();
          const keys = await redis.keys(`${prefix}*`);
          if (keys.length > 0) await redis.del(...keys);
          await redis.quit();
        },
      };
    },
  },
  {
    name: 'postgres',
    available: postgresUp,
    writeAttempts: 3,
    async open() {
      const proxy = await startTcpFaultProxy(targetOf(POSTGRES_URL, 5432));
      const schema = uniqueNamespace('faults');
      const url = new URL(POSTGRES_URL);
      url.port = String(proxy.port);
      url.hostname = '127.0.0.1';
      const pool = new pg.Pool({ connectionString: url.toString(), application_name: schema });
      pool.on('error', () => undefined);
      const store = postgresStore({ pool, schema });
      const postgres = new pg.Client({ connectionString: POSTGRES_URL });
      await postgres.connect();
      const directStore = postgresStore({ connectionString: POSTGRES_URL, schema });
      return {
        store,
        directStore,
        proxy,
        direct: { postgres, prefix: '', schema },
        async cleanup() {
          await proxy.close();
          await pool.end().catch(() => undefined);
          await directStore.close?.();
          await postgres.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await postgres.end();
        },
      };
    },
  },
];

/** Cuts the connection before each attempt of the next write that `match` accepts, so the write fails. */
export function failNextWrite(
  backend: ProxiedStoreBackend,
  proxied: ProxiedStore,
  match: ChunkMatcher,
): Promise<void> {
  const attempts = Array.from({ length: backend.writeAttempts }, () => proxied.proxy.resetBefore(match));
  // The first cut is the write failing; later attempts may never come (a store that gives up sooner).
  return attempts[0]!;
}
