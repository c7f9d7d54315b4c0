/**
 * Checkpoint latency and bytes per checkpoint of durable runs in a session that already holds 10, 100 and
 * 500 turns of history, on Redis and PostgreSQL. Each run is a real `agent.run` against the emulator (one
 * tool turn, then the answer): two checkpoints (before the tool starts, after it finished), then the final
 * commit (record + session append). Bytes are counted on the wire, client to server, by a TCP proxy in
 * front of each service, for the duration of each write.
 * Run: npx tsx bench/durable-checkpoints/durable-checkpoints.ts [--runs=N] [--print-only]
 *   (needs Redis on 6379 and PostgreSQL on 5432; writes bench/results/<date>-durable-checkpoints.md)
 */
import { writeFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import { SvcClient } from '../../src/api/svc-client.js';
import type { ChatMessage } from '../../src/api/types/chat.js';
import { startEmulator } from '../../src/emulator/index.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { defineTool } from '../../src/tools/define-tool.js';

const RUNS = Number(process.argv.find((arg) => arg.startsWith('--runs='))?.split('=')[1] ?? 40);
const HISTORY_TURNS = [10, 100, 500];
const tag = `bench_cp_${process.pid}`;

/** A TCP proxy that counts the bytes the client sends. */
async function startCountingProxy(port: number): Promise<{ port: number; sent: () => number; server: Server }> {
  let sent = 0;
  const server = createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port });
    client.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('proxy did not listen');
  return { port: address.port, sent: () => sent, server };
}

/** One turn of earlier conversation: a question, a tool call, its result and the answer (~700 bytes). */
function historyTurn(i: number): ChatMessage[] {
  const id = `h${i}`;
  return [
    { role: 'user', content: `Where is order ${1000 + i}? I ordered it last week and it has not arrived.` },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: `{"order":${1000 + i}}` } }],
    },
    {
      role: 'tool',
      tool_call_id: id,
      content: JSON.stringify({ order: 1000 + i, status: 'in transit', carrier: 'DHL', eta: '2026-11-28' }),
    },
    {
      role: 'assistant',
      content: `Order ${1000 + i} is in transit with DHL and should arrive on November 28. Anything else I can do?`,
    },
  ];
}

interface Measured {
  latencies: number[];
  bytes: number[];
  commitBytes: number[];
  historyBytes: number;
}

/** Wraps the store so each checkpoint's time and wire bytes are recorded (writes are sequential per run). */
function measure(store: Store, sent: () => number, into: Measured): Store {
  const measured: Store = {
    ...store,
    async updateRun(id, version, record) {
      const bytesBefore = sent();
      const start = performance.now();
      const written = await store.updateRun(id, version, record);
      const elapsed = performance.now() - start;
      // The run's last write is its final record: a checkpoint is a write of a running run.
      if (record.status === 'running') {
        into.latencies.push(elapsed);
        into.bytes.push(sent() - bytesBefore);
      } else into.commitBytes.push(sent() - bytesBefore);
      return written;
    },
    async addItems(sessionId, items, options) {
      const bytesBefore = sent();
      await store.addItems(sessionId, items, options);
      into.commitBytes.push(sent() - bytesBefore);
    },
  };
  const { commitRun } = store;
  if (commitRun) {
    measured.commitRun = async (id, version, record, append) => {
      const bytesBefore = sent();
      const written = await commitRun(id, version, record, append);
      into.commitBytes.push(sent() - bytesBefore);
      return written;
    };
  }
  return measured;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

// 500 turns of history are about 55K tokens: the emulator's model gets a window that holds them.
const emu = await startEmulator({ port: 0, model: { contextWindows: { 'svc-3.5-flash': 1_000_000 } } });
const client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
const lookup = defineTool({
  name: 'lookup',
  description: 'Looks an order up.',
  parameters: z.object({ order: z.number() }),
  execute: ({ order }) => ({ order, status: 'in transit', carrier: 'DHL', eta: '2026-11-28' }),
});

const backends = [
  {
    name: 'Redis',
    port: 6379,
    open: (port: number) => redisStore({ url: `redis://127.0.0.1:${port}`, prefix: `${tag}:` }),
    async cleanup() {
      const redis = new Redis('redis://127.0.0.1:6379');
      const keys = await redis.keys(`${tag}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    },
  },
  {
    name: 'PostgreSQL',
    port: 5432,
    open: (port: number) =>
      postgresStore({ connectionString: `postgres://postgres@127.0.0.1:${port}/test`, schema: tag }),
    async cleanup() {
      const pgClient = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
      await pgClient.connect();
      await pgClient.query(`DROP SCHEMA IF EXISTS "${tag}" CASCADE`);
      await pgClient.end();
    },
  },
];

/** Runs `RUNS` measured runs (after 3 warm-up ones) in a session holding `turns` turns of history. */
async function measureRuns(store: Store, sent: () => number, turns: number): Promise<Measured> {
  const session = `history-${turns}`;
  const items = Array.from({ length: turns }, (_, i) => historyTurn(i)).flat();
  await store.clearSession(session);
  await store.addItems(session, items);
  const measured: Measured = { latencies: [], bytes: [], commitBytes: [], historyBytes: JSON.stringify(items).length };
  const agent = new Agent({
    client,
    model: 'svc-3.5-flash',
    store: measure(store, sent, measured),
    tools: [lookup],
  });
  for (let run = 0; run < RUNS + 3; run++) {
    emu.script([
      { message: { content: '', tool_calls: [{ id: 'c1', function: { name: 'lookup', arguments: { order: 7 } } }] } },
      { message: { content: 'Order 7 is in transit with DHL.' } },
    ]);
    await agent.run('Where is order 7?', { session });
    // The run appended its four items: put the session back to `turns` turns of history.
    for (let popped = 0; popped < 4; popped++) await store.popItem(session);
    if (run === 2) {
      measured.latencies.length = 0;
      measured.bytes.length = 0;
      measured.commitBytes.length = 0;
    }
  }
  return measured;
}

const rows: string[] = [];
const ratios: string[] = [];
for (const backend of backends) {
  // Bytes through the counting proxy; latency on a direct connection, without the proxy's hops.
  const proxy = await startCountingProxy(backend.port);
  const proxied = backend.open(proxy.port);
  const direct = backend.open(backend.port);
  const perHistory: Record<number, { bytes: number; latency: number }> = {};
  try {
    for (const turns of HISTORY_TURNS) {
      const wire = await measureRuns(proxied, proxy.sent, turns);
      const timed = await measureRuns(direct, () => 0, turns);
      const latencies = [...timed.latencies].sort((a, b) => a - b);
      const endBytes = wire.commitBytes.reduce((a, b) => a + b, 0) / RUNS;
      perHistory[turns] = { bytes: mean(wire.bytes), latency: mean(latencies) };
      rows.push(
        `| ${backend.name} | ${turns} | ${(wire.historyBytes / 1024).toFixed(0)} KB | ${mean(wire.bytes).toFixed(0)} | ${endBytes.toFixed(0)} | ${mean(latencies).toFixed(3)} | ${quantile(latencies, 0.5).toFixed(3)} | ${quantile(latencies, 0.99).toFixed(3)} |`,
      );
    }
    const at = (turns: number) => perHistory[turns]!;
    ratios.push(
      `| ${backend.name} | ${(at(500).bytes / at(10).bytes).toFixed(2)}x | ${(at(500).latency / at(10).latency).toFixed(2)}x |`,
    );
  } finally {
    await proxied.close?.();
    await direct.close?.();
    proxy.server.close();
    await backend.cleanup();
  }
}
await client.close();
await emu.close();

const date = new Date().toISOString().slice(0, 10);
const report = `# Durable runs: checkpoint latency and bytes against the session's length

Written by \`npx tsx bench/durable-checkpoints/durable-checkpoints.ts --runs=${RUNS}\` on ${date}, Node ${process.version},
${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), shared with other work: read ratios, not absolutes.
Redis and PostgreSQL on 127.0.0.1, each behind a byte-counting TCP proxy; the emulator in the bench process.

Each run is \`agent.run(input, { session })\` in a session already holding N turns of history (a turn: a
question, a tool call, its result and the answer, about 700 bytes): one tool turn, then the answer. It
writes two checkpoints (before the tool starts, after it finished) and one final commit (record and session
append together). ${RUNS} runs per row after 3 warm-up runs; the session is put back to N turns after each.
Bytes are what the client sent to the server during each write (protocol included), counted in a pass
through the proxy; "run end" is everything the run's end sent (the final commit, or on a store without
\`commitRun\` the session append plus the final record). Latency is a checkpoint's round trip as the run
waits for it, measured in a second pass on a direct connection.

| Store | history turns | history size | bytes / checkpoint | bytes / run end | checkpoint mean ms | p50 ms | p99 ms |
|---|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

500 turns against 10 turns (the target is at most 1.5x):

| Store | bytes / checkpoint | mean latency |
|---|---:|---:|
${ratios.join('\n')}
`;
if (process.argv.includes('--print-only')) {
  console.log(report);
  process.exit(0);
}
const path = fileURLToPath(new URL(`../results/${date}-durable-checkpoints.md`, import.meta.url));
await writeFile(path, report);
console.log(report);
console.log(`written to ${path}`);
