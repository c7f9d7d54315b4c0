// node bench/src/durable.mjs [--runs=200] [--quick]   (needs `npm run build`, Redis on 6379, PostgreSQL on 5432)
// Durable runs: checkpoint cost per step on each store, the added latency of a durable step (its
// checkpoint and its events' append and signal), and throughput (runs/s) of 1, 2 and 4 worker processes on
// Redis and on PostgreSQL versus in-process `agent.run` with the same store, all against the emulator.
// Writes bench/results/durable.md (not with --quick: 1 worker process only, fewer runs, printed).
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { z } from 'zod';
import { startEmulator } from '../../dist/emulator/index.js';
import { Agent, defineTool, SvcClient } from '../../dist/index.js';
import { RunQueue } from '../../dist/queue/index.js';
import {
  fileStore,
  memoryStore,
  postgresStore,
  RunEventLogWriter,
  redisStore,
} from '../../dist/stores/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const QUICK = process.argv.includes('--quick');
// --profile: the worker processes write a CPU profile each under bench/profiles/ when the bench ends them.
const PROFILE = process.argv.includes('--profile');
const RUNS = Number(process.argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? (QUICK ? 80 : 200));
const load0 = os.loadavg();
const REDIS_URL = 'redis://127.0.0.1:6379';
const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
const tag = `bench_${process.pid}`;

const emu = await startEmulator({ port: 0 });
const client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL });
const weather = defineTool({
  name: 'get_weather',
  description: 'Get the weather in a city.',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, temperatureC: 14 }),
});
const question = (i) => `What is the weather in Paris? (run ${i})`;

// ---- Checkpoint cost: what one checkpoint does (serialise the state, version-checked write). ----
const sample = await new Agent({
  client,
  model: 'svc-3.5-flash',
  tools: [weather],
  store: memoryStore(),
}).run(question(0));
const stateBytes = JSON.stringify(sample.state).length;
async function checkpointCost(name, store, writes = 300) {
  const record = {
    id: `${tag}-cp`,
    agentName: 'bench',
    status: 'running',
    state: sample.state.toJSON(),
    interruptions: [],
  };
  let { version } = await store.createRun(record);
  for (let i = 0; i < 20; i++)
    ({ version } = await store.updateRun(record.id, version, { ...record, state: sample.state.toJSON() }));
  const times = [];
  for (let i = 0; i < writes; i++) {
    const start = performance.now();
    ({ version } = await store.updateRun(record.id, version, { ...record, state: sample.state.toJSON() }));
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return {
    name,
    mean,
    p50: times[Math.floor(times.length / 2)],
    p99: times[Math.floor(times.length * 0.99)],
  };
}
// ---- Added latency of a durable step: its checkpoint, then its events appended and announced. ----
// A tool turn's events as a worker writes them (start-step, tool-call, tool-result, finish-step).
const stepEvents = [
  { type: 'start-step' },
  { type: 'tool-call', toolCallId: 'c1', toolName: 'get_weather', input: { city: 'Paris' } },
  {
    type: 'tool-result',
    toolCallId: 'c1',
    toolName: 'get_weather',
    output: { city: 'Paris', temperatureC: 14 },
  },
  { type: 'finish-step', finishReason: 'tool_calls' },
].map((event) => JSON.stringify(event));
async function stepCost(name, store, steps = 300) {
  const record = {
    id: `${tag}-step-${name.replace(/\W/g, '')}`,
    agentName: 'bench',
    status: 'running',
    state: sample.state.toJSON(),
    interruptions: [],
  };
  let { version } = await store.createRun(record);
  const log = new RunEventLogWriter(store, record.id, { firstId: 0 });
  const times = [];
  for (let i = 0; i < steps + 20; i++) {
    const start = performance.now();
    ({ version } = await store.updateRun(record.id, version, { ...record, state: sample.state.toJSON() }));
    for (const event of stepEvents) log.push(event);
    await log.flush();
    if (i >= 20) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { name, p50: times[Math.floor(times.length / 2)], p99: times[Math.floor(times.length * 0.99)] };
}

const dir = mkdtempSync(join(os.tmpdir(), 'svc-bench-'));
const stores = {
  memory: memoryStore(),
  'file (fsync)': fileStore({ dir: join(dir, 'a') }),
  'file (no fsync)': fileStore({ dir: join(dir, 'b'), fsync: false }),
  redis: redisStore({ url: REDIS_URL, prefix: `${tag}:` }),
  postgres: postgresStore({ connectionString: POSTGRES_URL, schema: `${tag}_cp` }),
};
const checkpoints = [];
const steps = [];
for (const [name, store] of Object.entries(stores)) {
  checkpoints.push(await checkpointCost(name, store));
  console.log(checkpoints.at(-1));
  steps.push(await stepCost(name, store));
  console.log(steps.at(-1));
}

// ---- Throughput ----
async function inProcess(store) {
  const agent = new Agent({ client, model: 'svc-3.5-flash', tools: [weather], ...(store && { store }) });
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < RUNS) await agent.run(question(next++));
    }),
  );
  return RUNS / ((performance.now() - start) / 1000);
}
async function queued(backend, workers) {
  const queueName = `${tag}_${backend}_${workers}`;
  const config =
    backend === 'redis'
      ? { backend, url: REDIS_URL, prefix: `${tag}:`, connection: REDIS_URL }
      : {
          backend,
          url: POSTGRES_URL,
          schema: `${tag}_store`,
          connection: { postgres: POSTGRES_URL, schema: `${tag}_queue` },
        };
  Object.assign(config, { queueName, baseURL: emu.baseURL });
  const store = stores[backend === 'redis' ? 'redis' : 'postgres'];
  const queueStore =
    backend === 'redis' ? store : postgresStore({ connectionString: POSTGRES_URL, schema: config.schema });
  const children = await Promise.all(
    Array.from({ length: workers }, () => {
      const child = fork(join(here, 'durable-worker.mjs'), {
        env: { ...process.env, BENCH_CONFIG: JSON.stringify(config), BENCH_API_KEY: emu.apiKey },
        execArgv: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${join(here, '../profiles')}`] : [],
      });
      return new Promise((resolve) => child.once('message', () => resolve(child)));
    }),
  );
  const queue = new RunQueue({ connection: config.connection, store: queueStore, name: queueName });
  const start = performance.now();
  const ids = await Promise.all(
    Array.from({ length: RUNS }, (_, i) => queue.enqueue('weather', question(i))),
  );
  const records = await Promise.all(ids.map((id) => queue.waitUntilFinished(id, { timeout: 120_000 })));
  const rate = RUNS / ((performance.now() - start) / 1000);
  if (records.some((r) => r.status !== 'completed')) throw new Error('a benchmark run did not complete');
  // A profiled worker exits by itself (its profile is written on exit); the others are killed.
  for (const child of children) {
    if (PROFILE) {
      child.send('exit');
      await new Promise((resolve) => child.once('exit', resolve));
    } else child.kill('SIGKILL');
  }
  await queue.close();
  if (queueStore !== store) await queueStore.close();
  return rate;
}
const throughput = [];
throughput.push({ name: 'in-process agent.run (no store), 8 at once', rate: await inProcess(undefined) });
if (!QUICK) {
  throughput.push({
    name: 'in-process agent.run with fileStore, 8 at once',
    rate: await inProcess(fileStore({ dir: join(dir, 'c') })),
  });
}
const baselines = {};
for (const backend of ['redis', 'postgres']) {
  const rate = await inProcess(stores[backend]);
  baselines[backend] = rate;
  throughput.push({ name: `in-process agent.run with ${backend}Store, 8 at once`, rate });
  console.log(throughput.at(-1));
}
for (const backend of ['redis', 'postgres']) {
  for (const workers of QUICK ? [1] : [1, 2, 4]) {
    const rate = await queued(backend, workers);
    throughput.push({
      name: `queue on ${backend}, ${workers} worker process${workers > 1 ? 'es' : ''} x 8`,
      rate,
      ratio: rate / baselines[backend],
    });
    console.log(throughput.at(-1));
  }
}
const load1 = os.loadavg();

// ---- Report and cleanup ----
const fmt = (n) => n.toFixed(3);
const report = `# Durable runs: checkpoint cost and throughput

Written by \`node bench/src/durable.mjs --runs=${RUNS}${QUICK ? ' --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version},
${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), shared with other work: read ratios, not absolutes.
Load average ${load0.map((n) => n.toFixed(1)).join('/')} at start, ${load1.map((n) => n.toFixed(1)).join('/')} at end.
Redis and PostgreSQL on 127.0.0.1; the emulator in the bench process.

## Checkpoint cost per step

One checkpoint = \`state.toJSON()\` + a version-checked \`updateRun\`, of a finished weather run's state
(${stateBytes} bytes of JSON), 300 sequential writes after 20 warm-up writes. A run writes one checkpoint per
model turn with tool calls and one per finished tool call, plus one at the end.

| Store | mean ms | p50 ms | p99 ms |
|---|---:|---:|---:|
${checkpoints.map((c) => `| ${c.name} | ${fmt(c.mean)} | ${fmt(c.p50)} | ${fmt(c.p99)} |`).join('\n')}

Targets: < 1 ms per step on Redis, < 3 ms on PostgreSQL, < 1 ms for the file store.

## Added latency of a durable step

What a tool turn adds to a run on each store: its checkpoint (as above), then its 4 events appended to
the run's log and announced (\`RunEventLogWriter\` flush), one step after the other, 300 steps after 20
warm-up steps.

| Store | p50 ms | p99 ms |
|---|---:|---:|
${steps.map((c) => `| ${c.name} | ${fmt(c.p50)} | ${fmt(c.p99)} |`).join('\n')}

## Throughput

${RUNS} runs of the weather agent (one tool turn, then the answer: 2 model requests, 1 tool call), 8 at a
time per process.

| Setup | runs/s | vs in-process with the same store |
|---|---:|---:|
${throughput.map((t) => `| ${t.name} | ${t.rate.toFixed(1)} | ${t.ratio === undefined ? '' : `${t.ratio.toFixed(2)}x`} |`).join('\n')}

Goals: a queue with 1 worker process at >= 0.7x the in-process run with the same store on Redis, >= 0.5x
on PostgreSQL.
`;
if (!QUICK) writeFileSync(join(here, '../results/durable.md'), report);
console.log(report);

for (const store of Object.values(stores)) await store.close?.();
rmSync(dir, { recursive: true, force: true });
const redis = new Redis(REDIS_URL);
const keys = [...(await redis.keys(`${tag}*`)), ...(await redis.keys(`svc-agents:${tag}*`))];
if (keys.length > 0) await redis.del(...keys);
await redis.quit();
const db = new pg.Client({ connectionString: POSTGRES_URL });
await db.connect();
for (const schema of [`${tag}_cp`, `${tag}_store`, `${tag}_queue`])
  await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
await db.end();
await client.close();
await emu.close();
