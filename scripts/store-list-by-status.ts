// npx tsx scripts/store-list-by-status.ts [--runs=3000]   (Redis on 6379, PostgreSQL on 5432)
// What `listRuns({ status: 'interrupted' })` costs among many runs of other statuses: milliseconds and
// bytes the store's connection received, on Redis and PostgreSQL. Uses only the API every version of the
// stores has, so the same script measures a checkout from before the status index.
import { Redis } from 'ioredis';
import pg from 'pg';
import type { RunRecordInput, RunStatus, Store } from '../src/agent/durable/store.js';
import { postgresStore } from '../src/stores/postgres-store.js';
import { redisStore } from '../src/stores/redis-store.js';

const RUNS = Number(process.argv.find((arg) => arg.startsWith('--runs='))?.split('=')[1] ?? 3000);
const INTERRUPTED_EVERY = 50;
const tag = `list_bench_${process.pid}`;

// A state about the size of a short finished run (1.5 KB of JSON).
const state = {
  messages: Array.from({ length: 6 }, (_, i) => ({ role: 'user', content: `${i} ${'x'.repeat(230)}` })),
};

async function fill(store: Store): Promise<void> {
  for (let start = 0; start < RUNS; start += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, RUNS - start) }, (_, offset) => {
        const i = start + offset;
        const status: RunStatus = i % INTERRUPTED_EVERY === 0 ? 'interrupted' : 'completed';
        const input: RunRecordInput = {
          id: `run-${i}`,
          agentName: 'bench',
          status,
          state,
          interruptions: [],
        };
        return store.createRun(input);
      }),
    );
  }
}

async function measure(name: string, store: Store, received: () => number): Promise<void> {
  await fill(store);
  await store.listRuns({ status: 'interrupted', limit: 1 });
  const times: number[] = [];
  let bytes = 0;
  let found = 0;
  for (let round = 0; round < 5; round++) {
    const before = received();
    const started = performance.now();
    found = (await store.listRuns({ status: 'interrupted', limit: 100 })).length;
    times.push(performance.now() - started);
    bytes = received() - before;
  }
  times.sort((a, b) => a - b);
  console.log(
    `${name}: ${RUNS} runs, listRuns({ status: 'interrupted' }) -> ${found} runs, median ${times[2]!.toFixed(1)} ms, ${(bytes / 1024).toFixed(0)} KB received`,
  );
}

const redis = new Redis('redis://127.0.0.1:6379');
let redisBytes = 0;
// The client's socket exists once it connects (and again after a reconnect).
redis.on('connect', () => {
  redis.stream.on('data', (chunk: Buffer) => {
    redisBytes += chunk.length;
  });
});
const redisRuns = redisStore({ client: redis, prefix: `${tag}:` });
try {
  await measure('redis', redisRuns, () => redisBytes);
} finally {
  const keys = await redis.keys(`${tag}:*`);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  await redis.quit();
}

const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/test', max: 1 });
let postgresBytes = 0;
pool.on('connect', (client) => {
  (client as unknown as { connection: { stream: NodeJS.ReadableStream } }).connection.stream.on(
    'data',
    (chunk: Buffer) => {
      postgresBytes += chunk.length;
    },
  );
});
const postgresRuns = postgresStore({ pool, schema: tag });
try {
  await measure('postgres', postgresRuns, () => postgresBytes);
} finally {
  await pool.query(`DROP SCHEMA IF EXISTS "${tag}" CASCADE`);
  await pool.end();
}
