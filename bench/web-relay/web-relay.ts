/**
 * What does relaying a chat's events through the store cost, against the in-process bridge? 100 concurrent
 * runs emit synthetic `text-delta` events (one every 20 ms each: 5,000 events/s in all, a model streaming
 * ~50 tokens/s per chat); each run has one follower, as a web server relaying it to a browser.
 * From the repo root (Redis on 127.0.0.1:6379, PostgreSQL on 127.0.0.1:5432; `npm --prefix bench ci` once
 * for the `resumable-stream` contestant):
 *   npx tsx bench/web-relay/web-relay.ts [--quick] [--only=in-process,memory,redis,postgres,resumable-stream]
 * Writes bench/results/<date>-web-relay.md (not with --quick or --only) and prints it.
 *
 * Variants, same events:
 * - in-process: a `for await` over the run's `AgentStream` in the process that runs it, as the chat handler
 *   relayed a run before it kept events in the store: the floor.
 * - memory: the same relay as the stores below on `memoryStore` (in-process signals), what one chat server
 *   on the default store does now.
 * - redis / postgres: the worker's path. The producer appends with `RunEventLogWriter` (what is queued goes
 *   in the next append, no fixed window; each batch announced on `events:<runId>` with the events when they
 *   fit) to one store instance; the follower, `followRunEvents` on another store instance (its own
 *   connections, as another server), takes them from the signal, or reads the log after its last id.
 * - resumable-stream: Vercel's `resumable-stream` (ioredis) on the same Redis: the producer's context
 *   publishes each chunk to the listeners that asked for the stream, the follower resumes it from another
 *   context (its own connections). Its chunks live in the producer's memory: unlike the store's log they do
 *   not outlive the producer process.
 * Each event carries its emit time and the follower subtracts it on arrival (one process, one clock).
 */
import os from 'node:os';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { AgentStream } from '../../src/agent/agent-stream.js';
import type { Store } from '../../src/agent/durable/store.js';
import type { RunResult } from '../../src/agent/run-result.js';
import { followRunEvents } from '../../src/stores/follow-run-events.js';
import { RunEventLogWriter } from '../../src/stores/run-event-log-writer.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { memoryStore } from '../../src/stores/memory-store.js';

const quick = process.argv.includes('--quick');
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length).split(',');
const STREAMS = 100;
const EVENTS = quick ? 100 : 250;
const INTERVAL_MS = 20;
const ROUNDS = quick ? 1 : 3;
// The writer's batch window (`RunEventLogWriter` `batchMs`, 0 by default: no wait, what is queued goes next).
const BATCH_MS = Number(process.argv.find((arg) => arg.startsWith('--batch-ms='))?.slice('--batch-ms='.length) ?? 0);
const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const POSTGRES_URL = process.env.SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The emit times of one run's events, one every `INTERVAL_MS`, handed to `emit`. */
async function produce(count: number, emit: (text: string) => void): Promise<void> {
  for (let i = 0; i < count; i++) {
    await sleep(INTERVAL_MS);
    emit(String(performance.now()));
  }
}

async function runInProcess(count: number): Promise<number[]> {
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: STREAMS }, async () => {
      const stream = new AgentStream(async ({ emit }) => {
        emit({ type: 'start' });
        await produce(count, (text) => emit({ type: 'text-delta', text }));
        emit({ type: 'finish', finishReason: 'stop', usage: {} as never });
        return {} as RunResult;
      });
      for await (const event of stream) {
        if (event.type === 'text-delta') latencies.push(performance.now() - Number(event.text));
      }
    }),
  );
  return latencies;
}

const FINISH = JSON.stringify({ type: 'finish', finishReason: 'stop' });

/** Follows `runId`'s stored log as a web server does (`followRunEvents`, as `relayRunEvents`). */
async function follow(store: Store, runId: string, count: number, latencies: number[]): Promise<void> {
  let received = 0;
  const events = followRunEvents(store as Parameters<typeof followRunEvents>[0], runId, {
    isOver: async () => false,
    isLast: (event) => event.data === FINISH,
  });
  for await (const event of events) {
    const now = performance.now();
    const parsed = JSON.parse(event.data) as { type: string; text?: string };
    if (parsed.type !== 'text-delta') continue;
    latencies.push(now - Number(parsed.text));
    received++;
  }
  if (received !== count) throw new Error(`${runId}: ${received} of ${count} events arrived`);
}

async function runThroughStore(producer: Store, follower: Store, round: number, count: number) {
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: STREAMS }, async (_, index) => {
      const runId = `bench-${process.pid}-${round}-${index}-${Math.random().toString(36).slice(2, 8)}`;
      const following = follow(follower, runId, count, latencies);
      const writer = new RunEventLogWriter(producer as Store & Required<Pick<Store, 'appendRunEvents' | 'readRunEvents'>>, runId, { ttlMs: 600_000, batchMs: BATCH_MS });
      await produce(count, (text) => writer.push(JSON.stringify({ type: 'text-delta', text })));
      writer.push(FINISH);
      await writer.close();
      await following;
    }),
  );
  return latencies;
}

/** The same load through `resumable-stream` on Redis: a producer context and a follower context. */
async function runResumableStream(round: number, count: number): Promise<number[]> {
  const contexts = (resumable ??= await openResumable());
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: STREAMS }, async (_, index) => {
      const streamId = `bench-${process.pid}-${round}-${index}-${Math.random().toString(36).slice(2, 8)}`;
      let push: (chunk: string) => void = () => undefined;
      let end: () => void = () => undefined;
      const source = new ReadableStream<string>({
        start(controller) {
          push = (chunk) => controller.enqueue(chunk);
          end = () => controller.close();
        },
      });
      const own = await contexts.producer.createNewResumableStream(streamId, () => source);
      // The producer's own client (the original response) reads its stream, as a route handler would.
      const draining = (async () => {
        const reader = own!.getReader();
        while (!(await reader.read()).done);
      })();
      const followed = await contexts.follower.resumeExistingStream(streamId);
      if (!followed) throw new Error(`resumable-stream: ${streamId} not found`);
      const following = (async () => {
        const reader = followed.getReader();
        let buffered = '';
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          const now = performance.now();
          buffered += value;
          const lines = buffered.split('\n');
          buffered = lines.pop() ?? '';
          for (const line of lines) latencies.push(now - Number(line));
        }
      })();
      await produce(count, (text) => push(`${text}\n`));
      end();
      await Promise.all([draining, following]);
    }),
  );
  return latencies;
}

let resumable: Awaited<ReturnType<typeof openResumable>> | undefined;

async function openResumable() {
  const { Redis } = await import('ioredis');
  // Resolved from bench/node_modules (`npm --prefix bench ci`).
  const { createResumableStreamContext } = (await import(
    new URL('../node_modules/resumable-stream/dist/ioredis.js', import.meta.url).href
  )) as typeof import('resumable-stream/ioredis');
  const clients = Array.from({ length: 4 }, () => new Redis(REDIS_URL));
  const [producerPublisher, producerSubscriber, followerPublisher, followerSubscriber] = clients;
  const keyPrefix = `${suffix}:rs`;
  return {
    producer: createResumableStreamContext({
      waitUntil: null,
      keyPrefix,
      publisher: producerPublisher!,
      subscriber: producerSubscriber!,
    }),
    follower: createResumableStreamContext({
      waitUntil: null,
      keyPrefix,
      publisher: followerPublisher!,
      subscriber: followerSubscriber!,
    }),
    close: () => Promise.all(clients.map((client) => client.quit())),
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
};

const suffix = `bench_relay_${process.pid}`;
const stores: Record<string, () => [Store, Store]> = {
  memory: () => {
    const store = memoryStore();
    return [store, store];
  },
  redis: () => [
    redisStore({ url: REDIS_URL, prefix: `${suffix}:` }),
    redisStore({ url: REDIS_URL, prefix: `${suffix}:` }),
  ],
  postgres: () => [
    postgresStore({ connectionString: POSTGRES_URL, schema: suffix }),
    postgresStore({ connectionString: POSTGRES_URL, schema: suffix }),
  ],
};
const names = ['in-process', 'memory', 'redis', 'postgres', 'resumable-stream'].filter((name) => !only || only.includes(name));
const results: Record<string, { p50: number[]; p99: number[] }> = {};
const opened: Record<string, [Store, Store]> = {};
const load0 = os.loadavg();
const began = performance.now();
try {
  for (const name of names) if (stores[name]) opened[name] = stores[name]!();
  const runVariant = (name: string, round: number, count: number) =>
    name === 'in-process'
      ? runInProcess(count)
      : name === 'resumable-stream'
        ? runResumableStream(round, count)
        : runThroughStore(opened[name]![0], opened[name]![1], round, count);
  // Warm-up, unrecorded: connections, schema creation, JIT.
  for (const name of names) await runVariant(name, -1, 20);
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) {
      const latencies = await runVariant(name, round, EVENTS);
      if (latencies.length !== STREAMS * EVENTS) throw new Error(`${name}: ${latencies.length} events arrived`);
      const entry = (results[name] ??= { p50: [], p99: [] });
      entry.p50.push(median(latencies));
      entry.p99.push(percentile(latencies, 0.99));
    }
  }
} finally {
  for (const [producer, follower] of Object.values(opened)) {
    await producer.close?.();
    if (follower !== producer) await follower.close?.();
  }
  await resumable?.close();
  await cleanUp();
}
const load1 = os.loadavg();

const fmt = (n: number, digits = 2) => n.toFixed(digits);
const base50 = results['in-process'] ? median(results['in-process'].p50) : Number.NaN;
const base99 = results['in-process'] ? median(results['in-process'].p99) : Number.NaN;
const lines = [
  `# Web relay benchmark, ${new Date().toISOString().slice(0, 10)}${quick ? ' (quick)' : ''}`,
  '',
  `Command: \`npx tsx bench/web-relay/web-relay.ts${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}\` (Redis ${REDIS_URL}, PostgreSQL on 127.0.0.1:5432).`,
  '',
  `Node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}, ${os.cpus().length} cores. ${STREAMS} concurrent runs, ` +
    `${EVENTS} events each, one every ${INTERVAL_MS} ms (${(STREAMS * 1000) / INTERVAL_MS} events/s in all), one follower per run. ` +
    `Medians over ${ROUNDS} round(s) after a warm-up; producers, followers and the in-process bridge share the process; ` +
    `Redis and PostgreSQL share the machine. Load average ${load0.map((n) => fmt(n, 1)).join('/')} at start, ` +
    `${load1.map((n) => fmt(n, 1)).join('/')} at end; whole run ${fmt((performance.now() - began) / 1000, 0)} s.`,
  '',
  '| variant | latency p50 (ms) | latency p99 (ms) | p50 min-max over rounds | added p50 / p99 vs in-process (ms) |',
  '|---|---|---|---|---|',
  ...names.map((name) => {
    const entry = results[name]!;
    const p50 = median(entry.p50);
    const p99 = median(entry.p99);
    const range = `${fmt(Math.min(...entry.p50), 2)}-${fmt(Math.max(...entry.p50), 2)}`;
    const added = name === 'in-process' ? '-' : `${fmt(p50 - base50, 2)} / ${fmt(p99 - base99, 2)}`;
    return `| ${name} | ${fmt(p50, 2)} | ${fmt(p99, 2)} | ${range} | ${added} |`;
  }),
  '',
  'Latency is from the moment the producer emits an event to the moment the follower has it (for the stores:',
  `appended ${BATCH_MS > 0 ? `in a batch of up to ${BATCH_MS} ms` : 'at once (what queued during the append in flight goes next)'}, announced with the events in the signal,`,
  'taken from it by another store object; for resumable-stream: published by the producer to the follower).',
  'With a load average above the core count other processes shared the CPU: compare variants within one run only.',
  '',
];
const report = lines.join('\n');
console.log(report);
// The default configuration's full run is the recorded one; other windows and --quick only print.
if (!quick && BATCH_MS === 0 && !only) {
  writeFileSync(new URL(`../results/${new Date().toISOString().slice(0, 10)}-web-relay.md`, import.meta.url), report);
}

async function cleanUp(): Promise<void> {
  if (names.includes('redis') || names.includes('resumable-stream')) {
    const { Redis } = await import('ioredis');
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${suffix}:*`);
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    await redis.quit();
  }
  if (names.includes('postgres')) {
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${suffix}" CASCADE`);
    await client.end();
  }
}
