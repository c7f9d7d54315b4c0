import { Redis } from 'ioredis';
import pg from 'pg';
import type { Store } from '../../src/agent/durable/store.js';
import type { QueueConnection } from '../../src/queue/queue-connection.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from './infra-services.js';

/** A queue backend for a test: its connection, a store beside it, and cleanup of both. */
export interface QueueBackend {
  name: 'redis' | 'postgres';
  available: boolean;
  /** A fresh namespace: connection, queue name and store, with `cleanup` removing all of it. */
  create(): QueueNamespace;
}

/** One test's queue and store, and how a worker process reaches that store. */
export interface QueueNamespace {
  connection: QueueConnection;
  queueName: string;
  store: Store;
  storeOptions: { url: string; prefix?: string; schema?: string };
  cleanup(): Promise<void>;
}

const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

/** The two BullMQ backends, each skipped (or failed under CI=true) when its service is missing. */
export const queueBackends: QueueBackend[] = [
  {
    name: 'redis',
    available: redisUp,
    create() {
      const queueName = uniqueNamespace('q');
      const prefix = `${uniqueNamespace('rs')}:`;
      const store = redisStore({ url: REDIS_URL, prefix });
      return {
        connection: REDIS_URL,
        queueName,
        store,
        storeOptions: { url: REDIS_URL, prefix },
        async cleanup() {
          await store.close?.();
          await dropRedisKeys(`${prefix}*`, `svc-agents:${queueName}*`);
        },
      };
    },
  },
  {
    name: 'postgres',
    available: postgresUp,
    create() {
      const queueName = uniqueNamespace('q');
      const storeSchema = uniqueNamespace('ps');
      const queueSchema = uniqueNamespace('pq');
      const store = postgresStore({ connectionString: POSTGRES_URL, schema: storeSchema });
      return {
        connection: { postgres: POSTGRES_URL, schema: queueSchema },
        queueName,
        store,
        storeOptions: { url: POSTGRES_URL, schema: storeSchema },
        async cleanup() {
          await store.close?.();
          await dropPostgresSchemas(storeSchema, queueSchema);
        },
      };
    },
  },
];

/** Deletes the Redis keys matching each pattern (a test's store keys and BullMQ's queue keys). */
export async function dropRedisKeys(...patterns: string[]): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const keys = (await Promise.all(patterns.map((pattern) => redis.keys(pattern)))).flat();
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}

/** Drops the PostgreSQL schemas (a test's store and BullMQ's queue tables). */
export async function dropPostgresSchemas(...schemas: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
