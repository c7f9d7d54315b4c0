import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecordInput, Store } from '../../src/agent/durable/store.js';
import { RunConflictError } from '../../src/agent/errors/run-conflict-error.js';
import type { ChatMessage } from '../../src/api/types/chat.js';
import { fileStore } from '../../src/stores/file-store.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';

const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

interface StoreCase {
  name: string;
  skip?: boolean;
  create(): Promise<{ store: Store; cleanup(): Promise<void> }>;
}

const cases: StoreCase[] = [
  { name: 'memoryStore', create: async () => ({ store: memoryStore(), cleanup: async () => {} }) },
  {
    name: 'fileStore',
    create: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'svc-store-'));
      return { store: fileStore({ dir }), cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'redisStore',
    skip: !redisUp,
    create: async () => {
      const prefix = `${uniqueNamespace('redis')}:`;
      const store = redisStore({ url: REDIS_URL, prefix });
      return {
        store,
        cleanup: async () => {
          await store.close?.();
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
    skip: !postgresUp,
    create: async () => {
      const schema = uniqueNamespace('pg');
      const store = postgresStore({ connectionString: POSTGRES_URL, schema });
      return {
        store,
        cleanup: async () => {
          await store.close?.();
          const client = new pg.Client({ connectionString: POSTGRES_URL });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await client.end();
        },
      };
    },
  },
];

function createRecord(overrides: Partial<RunRecordInput> = {}): RunRecordInput {
  return {
    id: 'run-1',
    agentName: 'support',
    status: 'running',
    state: { $schemaVersion: 1, messages: [{ role: 'user', content: 'hi' }] },
    interruptions: [],
    ...overrides,
  };
}

const user = (content: string): ChatMessage => ({ role: 'user', content });

for (const storeCase of cases) {
  describe.skipIf(storeCase.skip)(storeCase.name, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      ({ store, cleanup } = await storeCase.create());
    });
    afterAll(async () => {
      await cleanup?.();
    });

    describe('when runs are created and updated', () => {
      it('should store a run at version 1 and read it back whole', async () => {
        const created = await store.createRun(createRecord({ id: 'a' }));
        expect(created.version).toBe(1);
        const read = await store.getRun('a');
        expect(read).toMatchObject({
          id: 'a',
          agentName: 'support',
          status: 'running',
          version: 1,
          interruptions: [],
          state: { $schemaVersion: 1, messages: [{ role: 'user', content: 'hi' }] },
        });
        expect(read?.createdAt).toBe(created.createdAt);
        expect(await store.getRun('missing')).toBeUndefined();
      });

      it('should refuse a second run with the same id', async () => {
        await store.createRun(createRecord({ id: 'dup' }));
        await expect(store.createRun(createRecord({ id: 'dup' }))).rejects.toBeInstanceOf(RunConflictError);
      });

      it('should bump the version on update and keep createdAt', async () => {
        const created = await store.createRun(createRecord({ id: 'b' }));
        const updated = await store.updateRun(
          'b',
          1,
          createRecord({
            id: 'b',
            status: 'interrupted',
            interruptions: [{ toolCallId: 'c1', toolName: 'pay', input: { amount: 3 } }],
          }),
        );
        expect(updated.version).toBe(2);
        const read = await store.getRun('b');
        expect(read).toMatchObject({
          status: 'interrupted',
          version: 2,
          createdAt: created.createdAt,
          interruptions: [{ toolCallId: 'c1', toolName: 'pay', input: { amount: 3 } }],
        });
      });

      it('should let exactly one of two writers at the same version win', async () => {
        await store.createRun(createRecord({ id: 'race' }));
        const results = await Promise.allSettled([
          store.updateRun('race', 1, createRecord({ id: 'race', status: 'completed' })),
          store.updateRun('race', 1, createRecord({ id: 'race', status: 'failed', error: 'x' })),
        ]);
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        const rejected = results.find((result) => result.status === 'rejected');
        expect((rejected as PromiseRejectedResult).reason).toBeInstanceOf(RunConflictError);
        expect((await store.getRun('race'))?.version).toBe(2);
      });

      it('should refuse an update of a missing run or at an old version', async () => {
        await expect(store.updateRun('nope', 1, createRecord({ id: 'nope' }))).rejects.toBeInstanceOf(
          RunConflictError,
        );
        await store.createRun(createRecord({ id: 'old' }));
        await store.updateRun('old', 1, createRecord({ id: 'old' }));
        await expect(store.updateRun('old', 1, createRecord({ id: 'old' }))).rejects.toBeInstanceOf(
          RunConflictError,
        );
      });

      it('should list runs newest first, filter by status and delete', async () => {
        await store.createRun(createRecord({ id: 'l1', status: 'completed' }));
        await new Promise((resolve) => setTimeout(resolve, 5));
        await store.createRun(createRecord({ id: 'l2', status: 'completed' }));
        const completed = await store.listRuns({ status: 'completed' });
        const ids = completed.map((record) => record.id);
        expect(ids.indexOf('l2')).toBeLessThan(ids.indexOf('l1'));
        expect(completed.every((record) => record.status === 'completed')).toBe(true);
        expect(await store.listRuns({ limit: 1 })).toHaveLength(1);
        await store.deleteRun('l1');
        expect(await store.getRun('l1')).toBeUndefined();
      });

      it('should keep ids with separators and odd characters apart', async () => {
        await store.createRun(createRecord({ id: '../x/y', agentName: 'one' }));
        await store.createRun(createRecord({ id: '..%2Fx%2Fy', agentName: 'two' }));
        expect((await store.getRun('../x/y'))?.agentName).toBe('one');
        expect((await store.getRun('..%2Fx%2Fy'))?.agentName).toBe('two');
      });
    });

    describe('when a session is used', () => {
      it('should append in order, read the last items, pop and clear', async () => {
        await store.addItems('s1', [user('1'), user('2')]);
        await store.addItems('s1', [user('3')]);
        expect(await store.getItems('s1')).toEqual([user('1'), user('2'), user('3')]);
        expect(await store.getItems('s1', 2)).toEqual([user('2'), user('3')]);
        expect(await store.popItem('s1')).toEqual(user('3'));
        expect(await store.getItems('s1')).toEqual([user('1'), user('2')]);
        await store.clearSession('s1');
        expect(await store.getItems('s1')).toEqual([]);
        expect(await store.popItem('s1')).toBeUndefined();
      });

      it('should not append twice under the same idempotency key', async () => {
        await store.addItems('s2', [user('a')], { idempotencyKey: 'run-1:0' });
        await store.addItems('s2', [user('a')], { idempotencyKey: 'run-1:0' });
        await store.addItems('s2', [user('b')], { idempotencyKey: 'run-1:1' });
        expect(await store.getItems('s2')).toEqual([user('a'), user('b')]);
      });

      it('should keep each append whole when many run at once', async () => {
        await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.addItems('s3', [user(`${i}a`), user(`${i}b`)])),
        );
        const items = (await store.getItems('s3')).map((item) => item.content as string);
        expect(items).toHaveLength(20);
        for (let i = 0; i < 20; i += 2) expect(items[i + 1]).toBe(items[i]!.replace('a', 'b'));
      });
    });
  });
}
