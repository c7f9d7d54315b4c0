import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecordInput } from '../../src/agent/durable/store.js';
import { POSTGRES_MIGRATIONS } from '../../src/stores/postgres-migrations.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { eventually } from '../helpers/eventually.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';

const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

function storedRun(id: string, status: RunRecordInput['status'], createdAt: number) {
  return {
    id,
    agentName: 'support',
    status,
    state: { messages: [] },
    interruptions: [],
    version: 3,
    createdAt,
    updatedAt: createdAt,
  };
}

describe.skipIf(!redisUp)('redisStore keys', () => {
  const prefix = `${uniqueNamespace('layout')}:`;
  const redis = new Redis(REDIS_URL);
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('should read and list by status the runs an older version wrote, and expire them once finished', async () => {
    // The layout before status sets and expiry: a hash with version, createdAt and json, one index.
    const now = Date.now();
    for (const [id, status, age] of [
      ['legacy-done', 'completed', 1000],
      ['legacy-waiting', 'interrupted', 2000],
      ['legacy-ancient', 'failed', 30 * 24 * 3600 * 1000],
    ] as const) {
      const createdAt = now - age;
      await redis.hset(`${prefix}run:${id}`, {
        version: 3,
        createdAt,
        json: JSON.stringify(storedRun(id, status, createdAt)),
      });
      await redis.zadd(`${prefix}runs`, createdAt, id);
    }
    const store = redisStore({ url: REDIS_URL, prefix });
    try {
      expect(await store.getRun('legacy-done')).toMatchObject({ status: 'completed', version: 3 });
      expect((await store.listRuns({ status: 'interrupted' })).map((run) => run.id)).toEqual([
        'legacy-waiting',
      ]);
      expect((await store.listRuns({ status: 'completed' })).map((run) => run.id)).toEqual(['legacy-done']);
      const updated = await store.updateRun('legacy-waiting', 3, {
        ...storedRun('legacy-waiting', 'completed', 0),
      });
      expect(updated.version).toBe(4);
      expect(await redis.zrange(`${prefix}runs:interrupted`, 0, -1)).toEqual([]);
      expect(await redis.zrange(`${prefix}runs:completed`, 0, -1)).toEqual(['legacy-waiting', 'legacy-done']);

      // Finished runs written before expiry existed get it on first use; one past it goes at once.
      expect(await redis.exists(`${prefix}run:legacy-ancient`)).toBe(0);
      expect(await redis.pttl(`${prefix}run:legacy-done`)).toBeGreaterThan(0);
      expect(await store.pruneRuns({ olderThanMs: 500 })).toEqual({ deleted: 1 });
      expect(await store.getRun('legacy-done')).toBeUndefined();
      expect(await store.getRun('legacy-waiting')).toMatchObject({ status: 'completed' });
    } finally {
      await store.close();
    }
  });

  it('should expire a run retentionMs after its finishing write, and drop it from the status set when listed', async () => {
    const store = redisStore({ url: REDIS_URL, prefix: `${prefix}ttl:`, retentionMs: 60_000 });
    try {
      await store.createRun({ id: 'r', agentName: 'a', status: 'running', state: {}, interruptions: [] });
      expect(await redis.pttl(`${prefix}ttl:run:r`)).toBe(-1);
      await store.updateRun('r', 1, {
        id: 'r',
        agentName: 'a',
        status: 'failed',
        state: {},
        interruptions: [],
      });
      const ttl = await redis.pttl(`${prefix}ttl:run:r`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      // As if it expired: listing finds the id without its hash and drops it from every set.
      await redis.del(`${prefix}ttl:run:r`);
      expect(await store.listRuns({ status: 'failed' })).toEqual([]);
      expect(await redis.zcard(`${prefix}ttl:runs:failed`)).toBe(0);
      expect(await redis.zcard(`${prefix}ttl:runs`)).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('should drop the ids of expired runs from its sets on later finishing writes', async () => {
    const store = redisStore({ url: REDIS_URL, prefix: `${prefix}sweep:`, retentionMs: 1 });
    const finished = (id: string) => ({
      id,
      agentName: 'a',
      status: 'completed' as const,
      state: {},
      interruptions: [],
    });
    try {
      await store.createRun({ ...finished('first'), status: 'running' });
      await store.updateRun('first', 1, finished('first'));
      await eventually(async () => (await redis.exists(`${prefix}sweep:run:first`)) === 0);
      await store.createRun({ ...finished('second'), status: 'running' });
      await store.updateRun('second', 1, finished('second'));
      for (const key of ['runs', 'runs:completed', 'runs:expiry']) {
        expect(await redis.zrange(`${prefix}sweep:${key}`, 0, -1)).not.toContain('first');
      }
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(!postgresUp)('postgresStore schema', () => {
  const schema = uniqueNamespace('legacy');
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it('should migrate a schema at its first version and read, list and update the runs in it', async () => {
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(
      `CREATE TABLE "${schema}".schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await admin.query(POSTGRES_MIGRATIONS[0]!.replaceAll('{schema}', `"${schema}"`));
    await admin.query(`INSERT INTO "${schema}".schema_migrations (version) VALUES (1)`);
    const old = Date.now() - 30 * 24 * 3600 * 1000;
    for (const [id, status, createdAt] of [
      ['legacy-done', 'completed', Date.now() - 1000],
      ['legacy-ancient', 'failed', old],
    ] as const) {
      const { version: _v, createdAt: _c, updatedAt: _u, ...record } = storedRun(id, status, createdAt);
      await admin.query(
        `INSERT INTO "${schema}".runs (id, status, version, created_at, updated_at, record) VALUES ($1, $2, 3, $3, $3, $4)`,
        [id, status, createdAt, record],
      );
    }
    const store = postgresStore({ connectionString: POSTGRES_URL, schema });
    try {
      expect(await store.getRun('legacy-done')).toMatchObject({ status: 'completed', version: 3 });
      expect((await store.getRun('legacy-done'))?.writeId).toBeUndefined();
      expect((await store.listRuns({ status: 'completed' })).map((run) => run.id)).toEqual(['legacy-done']);
      expect(await store.pruneRuns()).toEqual({ deleted: 1 });
      expect(await store.getRun('legacy-ancient')).toBeUndefined();
      const updated = await store.updateRun('legacy-done', 3, storedRun('legacy-done', 'completed', 0));
      expect(updated.version).toBe(4);
      // Migration 4 counted the rows already there per status; the prune took one away.
      const page = await store.queryRuns();
      expect(page.runs.map((run) => run.id)).toEqual(['legacy-done']);
      expect(page.counts).toEqual({ running: 0, interrupted: 0, completed: 1, failed: 0 });
      const { rows } = await admin.query(
        `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE 'runs_status%' ORDER BY 1`,
        [schema],
      );
      // Version 4 replaced runs_status_created_at by runs_by_status (keyset-ordered on id too).
      expect(rows.map((row) => row.indexname)).toEqual(['runs_status_updated_at']);
    } finally {
      await store.close();
    }
  });
});
