import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecordInput, Store } from '../../src/agent/durable/store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { defaultStoreOptions } from '../../src/stores/store-options.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';
import { dropPostgresSchemas, dropRedisKeys } from '../helpers/queue-backends.js';
import { runCli } from '../helpers/run-cli-process.js';

const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

interface Backend {
  name: string;
  available: boolean;
  flags: string[];
  open(ns: string): Store;
  /** Truncates the run's stored JSON (Redis) or drops its `interruptions` (PostgreSQL jsonb). */
  damage(ns: string, id: string): Promise<void>;
  /** Makes the run look last updated long ago, as a store of an older version left it. */
  age(ns: string, id: string): Promise<void>;
  cleanup(ns: string): Promise<void>;
}

async function withPostgres<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function withRedis<T>(fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(REDIS_URL);
  try {
    return await fn(redis);
  } finally {
    await redis.quit();
  }
}

const backends: Backend[] = [
  {
    name: 'redis',
    available: redisUp,
    flags: ['--redis', REDIS_URL],
    open: (ns) => redisStore({ url: REDIS_URL, prefix: `${ns}:` }),
    damage: (ns, id) =>
      withRedis(async (redis) => {
        const json = (await redis.hget(`${ns}:run:${id}`, 'json'))!;
        await redis.hset(`${ns}:run:${id}`, 'json', json.slice(0, 20));
      }),
    age: (ns, id) =>
      withRedis(async (redis) => {
        const key = `${ns}:run:${id}`;
        const record = JSON.parse((await redis.hget(key, 'json'))!);
        await redis.hset(key, 'json', JSON.stringify({ ...record, updatedAt: 1 }));
        await redis.persist(key);
        // The store finds finished runs to prune by when they expire: last update plus the retention.
        await redis.zadd(`${ns}:runs:expiry`, 1 + defaultStoreOptions.retentionMs, id);
      }),
    cleanup: (ns) => dropRedisKeys(`${ns}:*`, `svc-agents:${ns}*`),
  },
  {
    name: 'postgres',
    available: postgresUp,
    flags: ['--postgres', POSTGRES_URL],
    open: (ns) => postgresStore({ connectionString: POSTGRES_URL, schema: ns }),
    damage: (ns, id) =>
      withPostgres(async (client) => {
        await client.query(`UPDATE "${ns}".runs SET record = record - 'interruptions' WHERE id = $1`, [id]);
      }),
    age: (ns, id) =>
      withPostgres(async (client) => {
        await client.query(`UPDATE "${ns}".runs SET updated_at = 1 WHERE id = $1`, [id]);
      }),
    cleanup: (ns) => dropPostgresSchemas(ns, `${ns}_queue`),
  },
];

const run = (id: string, status: RunRecordInput['status']): RunRecordInput => ({
  id,
  agentName: 'support',
  status,
  state: { messages: [] },
  interruptions: [],
});

for (const backend of backends) {
  describe.skipIf(!backend.available)(`svc-agents runs on ${backend.name}`, () => {
    const ns = uniqueNamespace('cli');
    afterAll(() => backend.cleanup(ns));

    it('should list the good runs, warn about a damaged one by id and key, and prune old finished runs', async () => {
      const store = backend.open(ns);
      try {
        await store.createRun(run('good-1', 'running'));
        await store.createRun(run('broken-1', 'running'));
        await store.createRun(run('old-done', 'completed'));
        await store.createRun(run('recent-done', 'completed'));
        await backend.damage(ns, 'broken-1');
        await backend.age(ns, 'old-done');
      } finally {
        await store.close?.();
      }
      const flags = [...backend.flags, '--namespace', ns];

      const listed = await runCli(['runs', 'ls', ...flags]);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/good-1\s+running/);
      expect(listed.stdout).not.toContain('broken-1');
      expect(listed.stderr).toMatch(/warning: .*"broken-1".*broken-1/);

      const pruned = await runCli(['runs', 'prune', ...flags, '--json']);
      expect(pruned.code, pruned.stderr).toBe(0);
      expect(JSON.parse(pruned.stdout)).toEqual({ deleted: 1 });
      const reopened = backend.open(ns);
      try {
        const completed = await reopened.listRuns({ status: 'completed' });
        expect(completed.map((record) => record.id)).toEqual(['recent-done']);
      } finally {
        await reopened.close?.();
      }
    }, 60_000);
  });
}

describe('svc-agents runs prune', () => {
  it('should refuse an --older-than that is not a duration, before connecting', async () => {
    const refused = await runCli(['runs', 'prune', '--older-than', 'soon', '--redis', 'redis://127.0.0.1:1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--older-than: a positive whole number and a unit');
  });
});
