import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecordInput, Store } from '../../src/agent/durable/store.js';
import { RunConflictError } from '../../src/agent/errors.js';
import type { ChatMessage } from '../../src/api/types/chat.js';
import { fileStore } from '../../src/stores/file-store.js';
import type { GuardedStore } from '../../src/stores/guard-store.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { StoredRunInvalidError } from '../../src/stores/store-errors.js';
import type { StoreOptions } from '../../src/stores/store-options.js';
import { eventually } from '../helpers/eventually.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';

const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

/** A way a stored run can be damaged outside the store. */
type Damage = 'truncated-json' | 'no-interruptions' | 'no-version';

interface OpenedStore {
  store: GuardedStore;
  /** Damages a stored run in place; false when the backend cannot hold that damage. */
  damage(id: string, how: Damage): Promise<boolean>;
  cleanup(): Promise<void>;
}

interface StoreCase {
  name: string;
  skip?: boolean;
  /** The damage its storage can hold (jsonb cannot be truncated; only a Redis hash can lose `version`). */
  damages: readonly Damage[];
  create(options?: StoreOptions): Promise<OpenedStore>;
}

const cases: StoreCase[] = [
  {
    name: 'memoryStore',
    damages: [],
    create: async (options) => ({
      store: memoryStore(options),
      damage: async () => false,
      cleanup: async () => {},
    }),
  },
  {
    name: 'fileStore',
    damages: ['truncated-json', 'no-interruptions'],
    create: async (options) => {
      const dir = await mkdtemp(join(tmpdir(), 'svc-store-'));
      return {
        store: fileStore({ dir, ...options }),
        async damage(id, how) {
          const path = join(dir, 'runs', `${id}.json`);
          const text = await readFile(path, 'utf8');
          if (how === 'truncated-json') await writeFile(path, text.slice(0, text.length / 2));
          else if (how === 'no-interruptions') {
            const { interruptions: _, ...rest } = JSON.parse(text);
            await writeFile(path, JSON.stringify(rest));
          } else return false;
          return true;
        },
        cleanup: () => rm(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'redisStore',
    skip: !redisUp,
    damages: ['truncated-json', 'no-interruptions', 'no-version'],
    create: async (options) => {
      const prefix = `${uniqueNamespace('redis')}:`;
      const store = redisStore({ url: REDIS_URL, prefix, ...options });
      return {
        store,
        async damage(id, how) {
          const redis = new Redis(REDIS_URL);
          const key = `${prefix}run:${id}`;
          const json = (await redis.hget(key, 'json'))!;
          if (how === 'truncated-json') await redis.hset(key, 'json', json.slice(0, json.length / 2));
          else if (how === 'no-interruptions') {
            const { interruptions: _, ...rest } = JSON.parse(json);
            await redis.hset(key, 'json', JSON.stringify(rest));
          } else await redis.hdel(key, 'version');
          await redis.quit();
          return true;
        },
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
    damages: ['no-interruptions'],
    create: async (options) => {
      const schema = uniqueNamespace('pg');
      const store = postgresStore({ connectionString: POSTGRES_URL, schema, ...options });
      return {
        store,
        async damage(id, how) {
          if (how !== 'no-interruptions') return false;
          const client = new pg.Client({ connectionString: POSTGRES_URL });
          await client.connect();
          await client.query(`UPDATE "${schema}".runs SET record = record - 'interruptions' WHERE id = $1`, [
            id,
          ]);
          await client.end();
          return true;
        },
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
    let damage: OpenedStore['damage'];
    const warnings: string[] = [];
    beforeAll(async () => {
      ({ store, cleanup, damage } = await storeCase.create({
        onWarning: (message) => warnings.push(message),
      }));
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
        // Two runs must not share a millisecond: newest first is by createdAt.
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

    describe('when a write is sent again', () => {
      it('should answer the stored record for a repeated write id and refuse any other', async () => {
        const created = await store.createRun(createRecord({ id: 'w1' }), { writeId: 'create-w1' });
        const again = await store.createRun(createRecord({ id: 'w1' }), { writeId: 'create-w1' });
        expect(again).toMatchObject({ version: 1, createdAt: created.createdAt, writeId: 'create-w1' });
        await expect(store.createRun(createRecord({ id: 'w1' }))).rejects.toBeInstanceOf(RunConflictError);

        const input = createRecord({ id: 'w1', status: 'completed', text: 'ok' });
        const first = await store.updateRun('w1', 1, input, { writeId: 'step-2' });
        const repeated = await store.updateRun('w1', 1, input, { writeId: 'step-2' });
        expect(repeated).toMatchObject({ version: 2, writeId: 'step-2', createdAt: created.createdAt });
        expect((await store.getRun('w1'))?.version).toBe(2);
        expect(first.writeId).toBe('step-2');
        await expect(store.updateRun('w1', 1, input, { writeId: 'someone-else' })).rejects.toBeInstanceOf(
          RunConflictError,
        );
      });

      it('should give every write its own id when none is named', async () => {
        const created = await store.createRun(createRecord({ id: 'w2' }));
        const updated = await store.updateRun('w2', 1, createRecord({ id: 'w2' }));
        expect(created.writeId).toEqual(expect.any(String));
        expect(updated.writeId).not.toBe(created.writeId);
        await expect(store.updateRun('w2', 1, createRecord({ id: 'w2' }))).rejects.toBeInstanceOf(
          RunConflictError,
        );
      });
    });

    describe('when finished runs grow old', () => {
      it('should prune completed and failed runs past the retention and keep the rest and sessions', async () => {
        for (const status of ['running', 'interrupted', 'completed', 'failed'] as const) {
          await store.createRun(createRecord({ id: `old-${status}` }));
          await store.updateRun(`old-${status}`, 1, createRecord({ id: `old-${status}`, status }));
        }
        await store.addItems('kept-session', [user('keep me')]);
        const newest = Date.now();
        await eventually(async () => Date.now() > newest + 5);
        const { deleted } = await store.pruneRuns!({ olderThanMs: 1 });
        expect(deleted).toBeGreaterThanOrEqual(2);
        expect(await store.getRun('old-completed')).toBeUndefined();
        expect(await store.getRun('old-failed')).toBeUndefined();
        expect((await store.getRun('old-running'))?.status).toBe('running');
        expect((await store.getRun('old-interrupted'))?.status).toBe('interrupted');
        expect(await store.getItems('kept-session')).toEqual([user('keep me')]);
        expect((await store.listRuns({ status: 'completed' })).map((run) => run.id)).not.toContain(
          'old-completed',
        );
      });

      it('should keep finished runs younger than the retention', async () => {
        await store.createRun(createRecord({ id: 'young', status: 'completed' }));
        await store.updateRun('young', 1, createRecord({ id: 'young', status: 'completed' }));
        await store.pruneRuns!();
        expect((await store.getRun('young'))?.status).toBe('completed');
      });

      it('should list by status only runs at that status after they move on', async () => {
        await store.createRun(createRecord({ id: 'moving' }));
        await store.updateRun('moving', 1, createRecord({ id: 'moving', status: 'interrupted' }));
        expect((await store.listRuns({ status: 'running' })).map((run) => run.id)).not.toContain('moving');
        expect((await store.listRuns({ status: 'interrupted' })).map((run) => run.id)).toContain('moving');
      });
    });

    describe('when a stored run is damaged', () => {
      for (const how of ['truncated-json', 'no-interruptions', 'no-version'] as const) {
        it.skipIf(!storeCase.damages.includes(how))(
          `should name the run when reading it (${how}) and skip it when listing`,
          async () => {
            const id = `bad-${how}`;
            await store.createRun(createRecord({ id: 'good-neighbour' })).catch(() => undefined);
            await store.createRun(createRecord({ id }));
            expect(await damage(id, how)).toBe(true);
            const error = await store.getRun(id).then(
              () => undefined,
              (thrown: unknown) => thrown,
            );
            expect(StoredRunInvalidError.isInstance(error)).toBe(true);
            expect(error).toMatchObject({ runId: id });
            expect((error as StoredRunInvalidError).key).toContain(id);
            warnings.length = 0;
            const listed = (await store.listRuns({ limit: 1000 })).map((run) => run.id);
            expect(listed).toContain('good-neighbour');
            expect(listed).not.toContain(id);
            expect(warnings.some((warning) => warning.includes(id))).toBe(true);
            await store.deleteRun(id);
          },
        );
      }
    });
  });
}
