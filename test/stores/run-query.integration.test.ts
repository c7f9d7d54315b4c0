import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunQuery, RunSummary } from '../../src/agent/durable/run-query.js';
import type { RunRecord, RunRecordInput, RunStatus } from '../../src/agent/durable/store.js';
import { fileStore } from '../../src/stores/file-store.js';
import type { GuardedStore } from '../../src/stores/guard-store.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { queryRuns } from '../../src/stores/query-runs.js';
import { TEXT_SCAN_BUDGET } from '../../src/stores/redis-index-scripts.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { StoreInputError } from '../../src/stores/store-errors.js';
import { eventually } from '../helpers/eventually.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';

const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

interface OpenedStore {
  store: GuardedStore;
  /** Stores `record` as the version before the run index wrote it; false when the store has no such past. */
  writeOld(record: RunRecord): Promise<boolean>;
  cleanup(): Promise<void>;
}

const cases: Array<{ name: string; skip?: boolean; create(): Promise<OpenedStore> }> = [
  {
    name: 'memoryStore',
    // Seeded at faked dates years back, and memoryStore's idleness reads the same clock as its records:
    // a one-day idleTtlMs would drop the seeds before the first query.
    create: async () => ({
      store: memoryStore({ idleTtlMs: 10 * 365 * 24 * 3600 * 1000 }),
      writeOld: async () => false,
      cleanup: async () => {},
    }),
  },
  {
    name: 'fileStore',
    create: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'svc-run-query-'));
      return {
        store: fileStore({ dir, fsync: false }),
        // A file store's index is its files: a run file written by an older version is one more file.
        async writeOld(record) {
          await mkdir(join(dir, 'runs'), { recursive: true });
          await writeFile(join(dir, 'runs', `${record.id}.json`), JSON.stringify(record));
          return true;
        },
        cleanup: () => rm(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'redisStore',
    skip: !redisUp,
    create: async () => {
      const prefix = `${uniqueNamespace('runquery')}:`;
      const redis = new Redis(REDIS_URL);
      return {
        store: redisStore({ url: REDIS_URL, prefix }),
        // The layout before the index: the run's hash and the list's sorted sets, layout 2.
        async writeOld(record) {
          await redis.set(`${prefix}layout`, '2');
          const { version, createdAt, writeId: _, ...rest } = record;
          await redis.hset(`${prefix}run:${record.id}`, {
            version: String(version),
            createdAt: String(createdAt),
            status: record.status,
            json: JSON.stringify({ ...rest, createdAt }),
          });
          await redis.zadd(`${prefix}runs`, createdAt, record.id);
          await redis.zadd(`${prefix}runs:${record.status}`, createdAt, record.id);
          return true;
        },
        cleanup: async () => {
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
      const schema = uniqueNamespace('runquery');
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      const store = postgresStore({ connectionString: POSTGRES_URL, schema });
      return {
        store,
        // A row as the store wrote it before migration 4 filled the summary columns (summary NULL).
        async writeOld(record) {
          await store.getRun('warm-up');
          const { version, createdAt, updatedAt, writeId: _, ...rest } = record;
          await admin.query(
            `INSERT INTO "${schema}".runs (id, status, version, created_at, updated_at, record)
             VALUES ($1, $2, $3, $4, $5, $6)`,
            [record.id, record.status, version, createdAt, updatedAt, rest],
          );
          return true;
        },
        cleanup: async () => {
          await store.close();
          await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await admin.end();
        },
      };
    },
  },
];

const BASE = Date.UTC(2026, 10, 1);
const OWNER = `u~${'ab'.repeat(16)}`;

/** One seeded run: what it is, and when it was created and last written. */
interface Seed {
  id: string;
  agentName: string;
  status: RunStatus;
  at: number;
  durationMs: number;
  session?: string;
  tenant?: string;
  model?: string;
  fallback?: string;
  tokens: number;
  cost?: number;
  text: string;
}

const seeds: Seed[] = [
  {
    id: 'r01',
    agentName: 'support',
    status: 'completed',
    at: 1,
    durationMs: 500,
    session: 's1',
    tenant: 'acme',
    model: 'svc-3.5',
    tokens: 120,
    cost: 0.02,
    text: 'Where is my PARCEL?',
  },
  {
    id: 'r02',
    agentName: 'support',
    status: 'failed',
    at: 2,
    durationMs: 9000,
    session: 's1',
    tenant: 'acme',
    model: 'svc-3.5',
    fallback: 'svc-mini',
    tokens: 40,
    text: 'refund please',
  },
  {
    id: 'r03',
    agentName: 'billing',
    status: 'running',
    at: 3,
    durationMs: 0,
    tenant: 'globex',
    tokens: 0,
    text: 'invoice for march',
  },
  {
    id: 'r04',
    agentName: 'billing',
    status: 'interrupted',
    at: 4,
    durationMs: 1500,
    session: `${OWNER}~chat`,
    model: 'svc-3.5',
    tokens: 300,
    cost: 0.5,
    text: 'pay the invoice',
  },
  {
    id: 'r05',
    agentName: 'support',
    status: 'completed',
    at: 5,
    durationMs: 700,
    session: 's2',
    tenant: 'globex',
    model: 'svc-mini',
    tokens: 120,
    cost: 0.02,
    text: 'parcel lost again',
  },
  { id: 'r06', agentName: 'support', status: 'running', at: 6, durationMs: 10, tokens: 0, text: 'hello' },
  {
    id: 'r07',
    agentName: 'billing',
    status: 'completed',
    at: 6,
    durationMs: 2500,
    tenant: 'acme',
    model: 'svc-mini',
    tokens: 800,
    cost: 1.25,
    text: 'tax question',
  },
];

function inputOf(seed: Seed, status: RunStatus): RunRecordInput {
  const usage = {
    promptTokens: seed.tokens - seed.tokens / 4,
    completionTokens: seed.tokens / 4,
    totalTokens: seed.tokens,
    cachedTokens: 0,
    ...(seed.cost !== undefined && { cost: seed.cost }),
  };
  const steps = seed.model
    ? [
        {
          index: 0,
          model: seed.model,
          usage,
          ...(seed.fallback && { fallback: { model: seed.fallback, failed: [] } }),
        },
      ]
    : [];
  return {
    id: seed.id,
    agentName: seed.agentName,
    status,
    state: { $schemaVersion: 2, messages: [{ role: 'user', content: seed.text }], steps, usage },
    interruptions: [],
    ...(seed.session && { session: { id: seed.session, start: 0, appended: 0 } }),
    ...(seed.tenant && { tenant: seed.tenant }),
    ...(status === 'failed' && { error: 'Boom: it broke' }),
  };
}

// Written at fake times: created at BASE + at seconds, last written durationMs later.
async function seed(store: GuardedStore, run: Seed): Promise<void> {
  vi.setSystemTime(BASE + run.at * 1000);
  await store.createRun(inputOf(run, 'running'));
  if (run.status === 'running' && run.durationMs === 0) return;
  vi.setSystemTime(BASE + run.at * 1000 + run.durationMs);
  await store.updateRun(run.id, 1, inputOf(run, run.status));
}

async function allPages(store: GuardedStore, query: RunQuery): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.queryRuns({ ...query, ...(cursor && { cursor }) });
    ids.push(...page.runs.map((run) => run.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

const QUERIES: RunQuery[] = [
  {},
  { status: 'completed' },
  { status: ['running', 'interrupted'] },
  { agentName: 'billing' },
  { agentName: 'support', status: 'completed' },
  { sessionId: 's1' },
  { tenant: 'acme' },
  { tenant: OWNER },
  { model: 'svc-mini' },
  { createdFrom: BASE + 2000, createdTo: BASE + 6000 },
  { text: 'parcel' },
  { text: 'INVOICE', agentName: 'billing' },
];

for (const storeCase of cases) {
  describe.skipIf(storeCase.skip)(`${storeCase.name}.queryRuns`, () => {
    let opened: OpenedStore;
    let store: GuardedStore;
    beforeAll(async () => {
      opened = await storeCase.create();
      store = opened.store;
      vi.useFakeTimers({ toFake: ['Date'] });
      for (const run of seeds) await seed(store, run);
      vi.useRealTimers();
    });
    afterEach(() => vi.useRealTimers());
    afterAll(async () => {
      await opened?.cleanup();
    });

    describe('when runs are listed', () => {
      it('should summarise each run from its record', async () => {
        const { runs } = await store.queryRuns({ sort: 'createdAt', order: 'asc', limit: 2 });
        expect(runs[0]).toEqual({
          id: 'r01',
          agentName: 'support',
          status: 'completed',
          createdAt: BASE + 1000,
          updatedAt: BASE + 1500,
          durationMs: 500,
          sessionId: 's1',
          tenant: 'acme',
          model: 'svc-3.5',
          tokens: { input: 90, output: 30, cached: 0, total: 120 },
          costUsd: 0.02,
          steps: 1,
          title: 'Where is my PARCEL?',
        } satisfies RunSummary);
        expect(runs[1]).toMatchObject({ id: 'r02', model: 'svc-mini', error: 'Boom: it broke' });
        expect(runs[1]).not.toHaveProperty('costUsd');
      });

      it('should filter by each field, newest first by default', async () => {
        const ids = async (query: RunQuery) => (await store.queryRuns(query)).runs.map((run) => run.id);
        expect(await ids({})).toEqual(['r07', 'r06', 'r05', 'r04', 'r03', 'r02', 'r01']);
        expect(await ids({ status: 'completed' })).toEqual(['r07', 'r05', 'r01']);
        expect(await ids({ status: ['running', 'interrupted'] })).toEqual(['r06', 'r04', 'r03']);
        expect(await ids({ agentName: 'support', status: 'completed' })).toEqual(['r05', 'r01']);
        expect(await ids({ sessionId: 's1' })).toEqual(['r02', 'r01']);
        expect(await ids({ tenant: 'acme' })).toEqual(['r07', 'r02', 'r01']);
        expect(await ids({ tenant: OWNER })).toEqual(['r04']);
        expect(await ids({ model: 'svc-mini' })).toEqual(['r07', 'r05', 'r02']);
        expect(await ids({ createdFrom: BASE + 2000, createdTo: BASE + 5000 })).toEqual([
          'r04',
          'r03',
          'r02',
        ]);
        expect(await ids({ text: 'parcel' })).toEqual(['r05', 'r01']);
        expect(await ids({ text: 'PaY tHe' })).toEqual(['r04']);
        expect(await ids({ agentName: 'nobody' })).toEqual([]);
      });

      it('should sort by each key both ways, ties by id', async () => {
        const ids = async (query: RunQuery) => (await store.queryRuns(query)).runs.map((run) => run.id);
        expect(await ids({ sort: 'createdAt', order: 'asc' })).toEqual([
          'r01',
          'r02',
          'r03',
          'r04',
          'r05',
          'r06',
          'r07',
        ]);
        expect(await ids({ sort: 'durationMs' })).toEqual(['r02', 'r07', 'r04', 'r05', 'r01', 'r06', 'r03']);
        expect(await ids({ sort: 'durationMs', order: 'asc', limit: 3 })).toEqual(['r03', 'r06', 'r01']);
        expect(await ids({ sort: 'tokens' })).toEqual(['r07', 'r04', 'r05', 'r01', 'r02', 'r06', 'r03']);
        expect(await ids({ sort: 'tokens', order: 'asc' })).toEqual([
          'r03',
          'r06',
          'r02',
          'r01',
          'r05',
          'r04',
          'r07',
        ]);
        // A run whose cost is not known comes last when the most expensive come first.
        expect(await ids({ sort: 'costUsd' })).toEqual(['r07', 'r04', 'r05', 'r01', 'r06', 'r03', 'r02']);
        expect(await ids({ sort: 'costUsd', order: 'asc', status: 'completed' })).toEqual([
          'r01',
          'r05',
          'r07',
        ]);
      });

      it('should page every query exactly as a scan of listRuns does', async () => {
        const { queryRuns: _, ...scanOnly } = store;
        for (const query of QUERIES) {
          for (const sort of ['createdAt', 'durationMs', 'tokens', 'costUsd'] as const) {
            for (const order of ['asc', 'desc'] as const) {
              const asked = { ...query, sort, order };
              const expected = (await queryRuns(scanOnly, { ...asked, limit: 500 })).runs.map(
                (run) => run.id,
              );
              expect(await allPages(store, { ...asked, limit: 2 }), JSON.stringify(asked)).toEqual(expected);
            }
          }
        }
      });

      it('should count the runs of each status, whatever the filter', async () => {
        const { counts } = await store.queryRuns({ status: 'failed', agentName: 'billing' });
        expect(counts).toEqual({ running: 2, interrupted: 1, completed: 3, failed: 1 });
      });
    });

    describe('when runs are written while paging', () => {
      it('should neither skip nor repeat a run', async () => {
        const before = await allPages(store, {});
        const seen: string[] = [];
        let page = await store.queryRuns({ limit: 2 });
        let extra = 0;
        for (;;) {
          seen.push(...page.runs.map((run) => run.id));
          // Newer runs and moves of the listed ones between pages.
          await store.createRun({ ...inputOf(seeds[0]!, 'running'), id: `new-${extra++}` });
          const moved = await store.getRun('r03');
          if (moved?.status === 'running') {
            await store.updateRun('r03', moved.version, {
              ...inputOf(seeds[2]!, 'running'),
              status: 'running',
            });
          }
          if (!page.nextCursor) break;
          page = await store.queryRuns({ limit: 2, cursor: page.nextCursor });
        }
        expect(seen).toEqual(before);
        for (let i = 0; i < extra; i++) await store.deleteRun(`new-${i}`);
      });
    });

    describe('when runs leave the store', () => {
      it('should drop a deleted run from the list and the counts', async () => {
        vi.useFakeTimers({ toFake: ['Date'] });
        await seed(store, { ...seeds[0]!, id: 'gone', at: 7 });
        vi.useRealTimers();
        const listed = await store.queryRuns({ limit: 1 });
        expect(listed.runs[0]?.id).toBe('gone');
        await store.deleteRun('gone');
        const after = await store.queryRuns({ limit: 1 });
        expect(after.runs[0]?.id).toBe('r07');
        expect(after.counts.completed).toBe(3);
      });

      it('should drop pruned runs', async () => {
        vi.useFakeTimers({ toFake: ['Date'] });
        vi.setSystemTime(Date.UTC(2020, 0, 1));
        await store.createRun({ ...inputOf(seeds[0]!, 'running'), id: 'ancient' });
        await store.updateRun('ancient', 1, { ...inputOf(seeds[0]!, 'completed'), id: 'ancient' });
        vi.useRealTimers();
        expect((await store.queryRuns({ sort: 'createdAt', order: 'asc', limit: 1 })).runs[0]?.id).toBe(
          'ancient',
        );
        await store.pruneRuns({ olderThanMs: 365 * 24 * 3600 * 1000 });
        const page = await store.queryRuns({ sort: 'createdAt', order: 'asc', limit: 1 });
        expect(page.runs[0]?.id).toBe('r01');
        expect(page.counts.completed).toBe(3);
      });
    });

    describe('when a run is forked', () => {
      it('should keep forkedFrom through writes and list it', async () => {
        const input = { ...inputOf(seeds[5]!, 'running'), id: 'fork', forkedFrom: { runId: 'r01', step: 0 } };
        await store.createRun(input);
        await store.updateRun('fork', 1, { ...input, status: 'completed' });
        expect((await store.getRun('fork'))?.forkedFrom).toEqual({ runId: 'r01', step: 0 });
        const { runs } = await store.queryRuns({ limit: 1 });
        expect(runs[0]).toMatchObject({ id: 'fork', forkedFrom: { runId: 'r01', step: 0 } });
        await store.deleteRun('fork');
      });
    });

    describe('when runs were stored before the index', () => {
      it.skipIf(storeCase.name === 'memoryStore')('should index them on the next query', async () => {
        const old: RunRecord = {
          ...inputOf({ ...seeds[3]!, id: 'old' }, 'completed'),
          version: 4,
          createdAt: BASE - 1000,
          updatedAt: BASE - 400,
        };
        const reopened = await storeCase.create();
        try {
          expect(await reopened.writeOld(old)).toBe(true);
          const { runs, counts } = await reopened.store.queryRuns({ agentName: 'billing' });
          expect(runs).toEqual([
            expect.objectContaining({
              id: 'old',
              status: 'completed',
              durationMs: 600,
              tokens: expect.objectContaining({ total: 300 }),
            }),
          ]);
          expect(counts.completed).toBe(1);
        } finally {
          await reopened.store.close();
          await reopened.cleanup();
        }
      });
    });

    describe('when the query is bad', () => {
      it.each([
        [{ limit: 0 }, 'limit'],
        [{ limit: 501 }, 'limit'],
        [{ limit: 2.5 }, 'limit'],
        [{ cursor: 'not a cursor' }, 'cursor'],
        [{ cursor: Buffer.from('[1,"a","tokens","desc"]').toString('base64url') }, 'cursor'],
        [{ status: 'done' }, 'status'],
        [{ status: [] }, 'status'],
        [{ sort: 'name' }, 'sort'],
        [{ order: 'up' }, 'order'],
        [{ createdFrom: Number.NaN }, 'createdFrom'],
        [{ agentName: '' }, 'agentName'],
      ])('should refuse %j naming %s', async (query, field) => {
        const error = await store.queryRuns(query as RunQuery).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StoreInputError);
        expect(error).toMatchObject({ field, operation: 'queryRuns' });
      });
    });
  });
}

describe.skipIf(!redisUp)('redisStore.queryRuns when runs expire', () => {
  it('should drop an expired run from the list and the counts', async () => {
    const prefix = `${uniqueNamespace('runexpiry')}:`;
    const store = redisStore({ url: REDIS_URL, prefix, retentionMs: 300 });
    const redis = new Redis(REDIS_URL);
    try {
      await store.createRun({ ...inputOf(seeds[0]!, 'running'), id: 'brief' });
      await store.updateRun('brief', 1, { ...inputOf(seeds[0]!, 'completed'), id: 'brief' });
      expect((await store.queryRuns()).counts.completed).toBe(1);
      await eventually(async () => (await redis.exists(`${prefix}run:brief`)) === 0);
      const page = await store.queryRuns();
      expect(page.runs).toEqual([]);
      expect(page.counts.completed).toBe(0);
      expect(await redis.exists(`${prefix}idx:sum:brief`)).toBe(0);
    } finally {
      await store.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  });
});

describe.skipIf(!redisUp)('redisStore.queryRuns when a text search reads its budget', () => {
  it('should answer a short page and go on from where it stopped', async () => {
    const prefix = `${uniqueNamespace('runbudget')}:`;
    const store = redisStore({ url: REDIS_URL, prefix });
    try {
      // The one match is the oldest run, behind more runs than one page reads.
      const writes: Array<Promise<unknown>> = [];
      for (let i = 0; i <= TEXT_SCAN_BUDGET; i++) {
        const text = i === 0 ? 'the zeppelin' : 'nothing here';
        writes.push(
          store.createRun({
            ...inputOf({ ...seeds[5]!, text }, 'running'),
            id: `b${String(i).padStart(5, '0')}`,
          }),
        );
      }
      await Promise.all(writes);
      const first = await store.queryRuns({ text: 'zeppelin', sort: 'createdAt', order: 'asc' });
      expect(first.runs.map((run) => run.id)).toEqual(['b00000']);
      // Newest first, the match is past what one page reads: an empty page that says where to go on.
      const last = await store.queryRuns({ text: 'zeppelin', sort: 'tokens', order: 'desc', limit: 10 });
      expect(last.runs).toEqual([]);
      expect(last.nextCursor).toBeDefined();
      const next = await store.queryRuns({
        text: 'zeppelin',
        sort: 'tokens',
        order: 'desc',
        limit: 10,
        cursor: last.nextCursor!,
      });
      // Ties of tokens go by id, descending: the first run is the last one read, on the second page.
      expect(next.runs.map((run) => run.id)).toEqual(['b00000']);
      expect(next.nextCursor).toBeUndefined();
    } finally {
      await store.close();
      const redis = new Redis(REDIS_URL);
      for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 }) as AsyncIterable<
        string[]
      >) {
        if (keys.length > 0) await redis.unlink(...keys);
      }
      await redis.quit();
    }
  });
});

describe('fileStore.queryRuns of a folder shared by two stores', () => {
  it('should list what the other store wrote and deleted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-run-query-shared-'));
    const [a, b] = [fileStore({ dir, fsync: false }), fileStore({ dir, fsync: false })];
    try {
      await a.createRun({ ...inputOf(seeds[0]!, 'running') });
      expect((await b.queryRuns()).runs.map((run) => run.id)).toEqual(['r01']);
      await a.updateRun('r01', 1, inputOf(seeds[0]!, 'completed'));
      expect((await b.queryRuns()).counts).toMatchObject({ running: 0, completed: 1 });
      await a.deleteRun('r01');
      expect((await b.queryRuns()).runs).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('queryRuns of a store without an index', () => {
  it('should answer by scanning listRuns and check the query the same way', async () => {
    const inner = memoryStore();
    const plain = { listRuns: inner.listRuns, createRun: inner.createRun };
    await plain.createRun({ ...inputOf(seeds[0]!, 'running'), id: 'a' });
    await plain.createRun({ ...inputOf(seeds[2]!, 'running'), id: 'b' });
    const page = await queryRuns(plain as never, { agentName: 'billing' });
    expect(page.runs.map((run) => run.id)).toEqual(['b']);
    expect(page.counts.running).toBe(2);
    await expect(queryRuns(plain as never, { cursor: '%%%' })).rejects.toMatchObject({ field: 'cursor' });
  });
});
