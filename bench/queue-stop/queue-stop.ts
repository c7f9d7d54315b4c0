/**
 * What a queued run costs on the wire and how long `queue.stop` takes in a deep queue, on Redis.
 * 1. Bytes per run: N one-turn runs are enqueued and run by one worker against the emulator; a TCP proxy
 *    in front of Redis counts the bytes clients send (producer and worker, queue and store connections).
 * 2. Stop time: 15,000 runs are queued (no worker), then `queue.stop` is called on 20 of them, one at a
 *    time; the median and the slowest are reported.
 * Run: npx tsx bench/queue-stop/queue-stop.ts [--runs=N] [--queued=N] [--out=file.md]
 *   (needs Redis on 6379; prints a Markdown table, and writes it to --out when given)
 */
import { writeFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import os from 'node:os';
import { Redis } from 'ioredis';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { startWorker } from '../../src/queue/start-worker.js';
import { redisStore } from '../../src/stores/redis-store.js';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const RUNS = Number(arg('runs', '200'));
const QUEUED = Number(arg('queued', '15000'));
const out = arg('out', '');
const tag = `bench_qs_${process.pid}`;

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
  const address = server.address() as { port: number };
  return { port: address.port, sent: () => sent, server };
}

async function bytesPerRun(): Promise<number> {
  const proxy = await startCountingProxy(6379);
  const url = `redis://127.0.0.1:${proxy.port}`;
  const emu = await startEmulator({ port: 0 });
  emu.script(Array.from({ length: RUNS }, () => ({ message: { content: 'Your order ships today.' } })));
  const client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
  const store = redisStore({ url, prefix: `${tag}:b:` });
  const name = `${tag}-bytes`;
  const worker = await startWorker({
    connection: url,
    store,
    name,
    agents: { support: new Agent({ client, model: 'svc-3.5-flash' }) },
    concurrency: 8,
    handleSignals: false,
    strandedRunCheckMs: 0,
  });
  const queue = new RunQueue({ connection: url, store, name });
  // Warm up: connections opened, scripts loaded.
  await queue.waitUntilFinished(await queue.enqueue('support', 'Where is my order?'));
  const before = proxy.sent();
  const ids: string[] = [];
  for (let i = 1; i < RUNS; i++) ids.push(await queue.enqueue('support', `Where is order ${i}?`));
  for (const id of ids) await queue.waitUntilFinished(id, { timeout: 120_000 });
  const bytes = (proxy.sent() - before) / ids.length;
  await worker.close();
  await queue.close();
  await store.close?.();
  await client.close();
  await emu.close();
  proxy.server.close();
  return bytes;
}

async function stopTimes(): Promise<number[]> {
  const store = redisStore({ url: 'redis://127.0.0.1:6379', prefix: `${tag}:s:` });
  const queue = new RunQueue({ connection: 'redis://127.0.0.1:6379', store, name: `${tag}-stop` });
  const ids: string[] = [];
  for (let i = 0; i < QUEUED; i += 100) {
    const batch = Array.from({ length: Math.min(100, QUEUED - i) }, (_, j) =>
      queue.enqueue('support', `Queued run ${i + j}`),
    );
    ids.push(...(await Promise.all(batch)));
  }
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const id = ids[Math.floor(((i + 0.5) / 20) * ids.length)]!;
    const start = performance.now();
    const record = await queue.stop(id);
    times.push(performance.now() - start);
    if (record.status !== 'failed') throw new Error(`run ${id} not stopped: ${record.status}`);
  }
  await queue.close();
  await store.close?.();
  return times.sort((a, b) => a - b);
}

async function cleanup() {
  const redis = new Redis(6379, '127.0.0.1');
  for (const pattern of [`${tag}:*`, `bull:${tag}*`, `svc-agents:${tag}*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  }
  await redis.quit();
}

try {
  const bytes = await bytesPerRun();
  const times = await stopTimes();
  const median = (times[9]! + times[10]!) / 2;
  const table = [
    `| measure | value |`,
    `|---|---|`,
    `| bytes sent to Redis per one-turn run (producer + worker, ${RUNS - 1} runs) | ${Math.round(bytes)} |`,
    `| \`queue.stop\` of a queued run, ${QUEUED} queued, median of 20 | ${median.toFixed(1)} ms |`,
    `| \`queue.stop\`, slowest of 20 | ${times.at(-1)!.toFixed(1)} ms |`,
    ``,
    `Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} at the end.`,
  ].join('\n');
  console.log(table);
  if (out) await writeFile(out, `${table}\n`);
} finally {
  await cleanup();
}
