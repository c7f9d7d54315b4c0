/**
 * How fast the run inspector's list answers at scale: `queryRuns` over N stored runs (100,000 by default)
 * on Redis and PostgreSQL. On Redis the runs are seeded through the store's own writes (create, then a
 * finishing update, 128 in flight); on PostgreSQL by multi-row INSERTs of the rows the store's writes
 * make (record and summary columns, 1,000 rows a statement), which is faster. They are spread over 30 days,
 * 8 agents, 50 tenants, N/5 sessions and 4 models. Then each query kind is timed `--queries` times with
 * varied arguments (a page of 50) and its p50/p99 reported. Text search is reported on its own line: Redis
 * answers it by a bounded scan of summaries (see docs/inspector.md), PostgreSQL with a pg_trgm index.
 * Run: npx tsx bench/inspector/list-runs.ts [--runs=100000] [--queries=200] [--only=redis,postgres] [--write]
 *   (needs Redis on 6379 and PostgreSQL on 5432, db `test`, user `postgres`; prints a Markdown table and,
 *   with --write, writes it to bench/results/<date>-inspector-list.md; everything seeded is removed after)
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { RunQuery } from '../../src/agent/durable/run-query.js';
import type { RunRecordInput, RunStatus } from '../../src/agent/durable/store.js';
import type { GuardedStore } from '../../src/stores/guard-store.js';
import { postgresSummaryValues } from '../../src/stores/postgres-run-index.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const RUNS = Number(arg('runs', '100000'));
const QUERIES = Number(arg('queries', '200'));
const ONLY = arg('only', 'redis,postgres').split(',');
const WRITE = process.argv.includes('--write');
const REDIS_URL = 'redis://127.0.0.1:6379';
const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
const tag = `bench_inspector_${process.pid}`;
const LIMIT = 50;
const DAY = 24 * 3600 * 1000;
const START = Date.UTC(2026, 9, 1);
const SPAN = 30 * DAY;

// A fixed pseudo-random sequence, so both backends get the same runs and queries.
// (mulberry32: 32-bit integer steps, no precision lost in doubles)
let seed = 42;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const AGENTS = ['support', 'billing', 'sales', 'triage', 'research', 'ops', 'legal', 'hr'];
const MODELS = ['svc-3.5-flash', 'svc-3.5', 'svc-mini', 'svc-4'];
const WORDS = ['order', 'refund', 'parcel', 'invoice', 'password', 'upgrade', 'delay', 'address', 'plan'];
const RARE = ['zeppelin', 'quasar', 'marmalade'];
const STATUSES: RunStatus[] = ['completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'failed', 'interrupted', 'running'];

interface Spec {
  input: RunRecordInput;
  createdAt: number;
  durationMs: number;
  status: RunStatus;
}

function specOf(i: number): Spec {
  const tokens = Math.floor(random() * 20_000);
  const cost = random() < 0.8 ? tokens * 0.000002 : undefined;
  const usage = { promptTokens: tokens - (tokens >> 2), completionTokens: tokens >> 2, totalTokens: tokens, cachedTokens: 0, ...(cost !== undefined && { cost }) };
  const words = Array.from({ length: 12 }, () => pick(WORDS));
  if (random() < 0.01) words.push(pick(RARE));
  const text = `Please help with my ${words.join(' ')}`;
  const status = pick(STATUSES);
  return {
    createdAt: START + Math.floor(random() * SPAN),
    durationMs: Math.floor(random() * 60_000),
    status,
    input: {
      id: `run-${String(i).padStart(7, '0')}`,
      agentName: pick(AGENTS),
      status: 'running',
      state: {
        $schemaVersion: 2,
        messages: [{ role: 'user', content: text }, { role: 'assistant', content: `Sure, about your ${words[0]}.` }],
        steps: [{ index: 0, model: pick(MODELS), usage }],
        usage,
      },
      interruptions: [],
      session: { id: `session-${Math.floor(random() * (RUNS / 5))}`, start: 0, appended: 0 },
      tenant: `tenant-${Math.floor(random() * 50)}`,
    },
  };
}

// The store stamps records with Date.now(), read when a write starts: seeding sets the clock per write.
const realNow = Date.now;
async function seedRuns(store: GuardedStore, specs: readonly Spec[]): Promise<number> {
  const started = performance.now();
  const inFlight = new Set<Promise<unknown>>();
  for (const spec of specs) {
    const write = (async () => {
      Date.now = () => spec.createdAt;
      const created = store.createRun(spec.input);
      Date.now = realNow;
      await created;
      Date.now = () => spec.createdAt + spec.durationMs;
      const finished = store.updateRun(spec.input.id, 1, { ...spec.input, status: spec.status });
      Date.now = realNow;
      await finished;
    })();
    inFlight.add(write);
    write.finally(() => inFlight.delete(write));
    if (inFlight.size >= 128) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  return performance.now() - started;
}

// The rows a create and a finishing update leave, 1,000 per INSERT: the index is built as writes build it.
async function bulkInsertRuns(store: GuardedStore, schema: string, specs: readonly Spec[]): Promise<number> {
  const started = performance.now();
  await store.getRun('migrate-first');
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    for (let at = 0; at < specs.length; at += 1000) {
      const columns: unknown[][] = Array.from({ length: 14 }, () => []);
      for (const spec of specs.slice(at, at + 1000)) {
        const updatedAt = spec.createdAt + spec.durationMs;
        const input = { ...spec.input, status: spec.status };
        const record = { ...input, version: 2, createdAt: spec.createdAt, updatedAt };
        const row = [input.id, input.status, 2, spec.createdAt, updatedAt, JSON.stringify(input), ...postgresSummaryValues(record)];
        row.forEach((value, i) => columns[i]!.push(value));
      }
      await client.query(
        `INSERT INTO "${schema}".runs (id, status, version, created_at, updated_at, record, summary, agent_name,
           session_id, tenant, model, tokens, cost_key, search_text, duration_ms)
         SELECT id, status, version, created_at, updated_at, record, summary, agent_name, session_id, tenant, model,
           tokens, cost_key, search_text, updated_at - created_at
         FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::bigint[], $6::jsonb[], $7::jsonb[],
           $8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[], $13::float8[], $14::text[])
         AS t(id, status, version, created_at, updated_at, record, summary, agent_name, session_id, tenant, model,
           tokens, cost_key, search_text)`,
        columns,
      );
    }
    await client.query(`ANALYZE "${schema}".runs`);
  } finally {
    await client.end();
  }
  return performance.now() - started;
}

type QueryKind = { name: string; make: (specs: readonly Spec[]) => RunQuery; pageFive?: boolean };

const KINDS: QueryKind[] = [
  { name: 'first page, no filter', make: () => ({}) },
  { name: 'status', make: () => ({ status: pick(['completed', 'failed', 'interrupted', 'running'] as const) }) },
  { name: 'agent + status', make: () => ({ agentName: pick(AGENTS), status: pick(['completed', 'failed'] as const) }) },
  { name: 'session', make: (specs) => ({ sessionId: pick(specs).input.session!.id }) },
  { name: 'time range (1 day)', make: () => { const from = START + Math.floor(random() * (SPAN - DAY)); return { createdFrom: from, createdTo: from + DAY }; } },
  { name: 'sort by tokens', make: () => ({ sort: 'tokens', order: pick(['asc', 'desc'] as const) }) },
  { name: 'sort by cost', make: () => ({ sort: 'costUsd', order: pick(['asc', 'desc'] as const) }) },
  { name: 'sort by duration', make: () => ({ sort: 'durationMs', order: pick(['asc', 'desc'] as const) }) },
  { name: 'page 5 via cursor (status, by tokens)', make: () => ({ status: pick(['completed', 'failed'] as const), sort: 'tokens' }), pageFive: true },
  { name: 'text search (common word)', make: () => ({ text: pick(WORDS) }) },
  { name: 'text search (rare word, 1% of runs)', make: () => ({ text: pick(RARE) }) },
];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function timeKinds(store: GuardedStore, specs: readonly Spec[]) {
  const rows: Array<{ kind: string; p50: number; p99: number; rows: number }> = [];
  for (const kind of KINDS) {
    const times: number[] = [];
    let shown = 0;
    for (let i = 0; i < QUERIES; i++) {
      let query: RunQuery = { ...kind.make(specs), limit: LIMIT };
      if (kind.pageFive) {
        for (let page = 1; page < 5; page++) {
          const cursor = (await store.queryRuns(query)).nextCursor;
          if (!cursor) break;
          query = { ...query, cursor };
        }
      }
      const started = performance.now();
      const page = await store.queryRuns(query);
      times.push(performance.now() - started);
      shown += page.runs.length;
    }
    times.sort((a, b) => a - b);
    rows.push({ kind: kind.name, p50: percentile(times, 0.5), p99: percentile(times, 0.99), rows: shown / QUERIES });
  }
  return rows;
}

async function cleanRedis(prefix: string) {
  const redis = new Redis(REDIS_URL);
  const stream = redis.scanStream({ match: `${prefix}*`, count: 1000 });
  for await (const keys of stream as AsyncIterable<string[]>) if (keys.length > 0) await redis.unlink(...keys);
  await redis.quit();
}

async function cleanPostgres(schema: string) {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

const specs = Array.from({ length: RUNS }, (_, i) => specOf(i));
const backends = [
  {
    name: 'Redis',
    key: 'redis',
    open: () => redisStore({ url: REDIS_URL, prefix: `${tag}:` }),
    seed: seedRuns,
    clean: () => cleanRedis(`${tag}:`),
  },
  {
    name: 'PostgreSQL',
    key: 'postgres',
    open: () => postgresStore({ connectionString: POSTGRES_URL, schema: tag }),
    seed: (store: GuardedStore, all: readonly Spec[]) => bulkInsertRuns(store, tag, all),
    clean: () => cleanPostgres(tag),
  },
].filter((backend) => ONLY.includes(backend.key));

const lines = [
  `# Run inspector list: queryRuns over ${RUNS.toLocaleString('en-US')} runs`,
  '',
  `Page of ${LIMIT}, ${QUERIES} queries per kind with varied arguments, one at a time. ${new Date().toISOString()}.`,
  '',
  '| Backend | Query | p50 ms | p99 ms | runs per page |',
  '| --- | --- | ---: | ---: | ---: |',
];
const seeding: string[] = [];
for (const backend of backends) {
  const store = backend.open();
  try {
    const seedMs = await backend.seed(store, specs);
    seeding.push(`${backend.name}: seeded ${RUNS.toLocaleString('en-US')} runs in ${(seedMs / 1000).toFixed(1)} s`);
    seed = 7;
    for (const row of await timeKinds(store, specs)) {
      lines.push(`| ${backend.name} | ${row.kind} | ${row.p50.toFixed(1)} | ${row.p99.toFixed(1)} | ${row.rows.toFixed(1)} |`);
    }
  } finally {
    await store.close();
    await backend.clean();
  }
}
lines.push('', ...seeding.map((line) => `- ${line}`));
lines.push(
  '',
  `Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} at the end.`,
);
const table = lines.join('\n');
console.log(table);
if (WRITE) {
  const path = new URL(`../results/${new Date().toISOString().slice(0, 10)}-inspector-list.md`, import.meta.url);
  await writeFile(path, `${table}\n`);
  console.log(`\nwritten to ${path.pathname}`);
}
