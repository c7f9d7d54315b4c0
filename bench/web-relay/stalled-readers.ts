/**
 * How much memory does a chat server spend on clients that stop reading an event stream? One ended run
 * with a ~12 MB event log (12,000 events of 1 KB) on the default memory store; N clients each ask for its
 * events (`GET /api/runs/:id/events`) and never read a byte. The kernel's socket buffers take what they
 * can; everything beyond that is the server's. Heap, external memory and RSS are measured after a GC once
 * the writes settled, for N = 0, 25, 50, 100.
 * From the repo root:
 *   npx tsx --expose-gc bench/web-relay/stalled-readers.ts [--readers=0,25,50,100] [--out=file.md]
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import { memoryStore } from '../../src/stores/memory-store.js';
import type { ChatRunner } from '../../src/web/chat-runner.js';
import { chatKeys } from '../../src/web/chat-state.js';
import { createChatHandler } from '../../src/web/create-chat-handler.js';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const steps = (arg('readers') ?? '0,25,50,100').split(',').map(Number);
const EVENTS = 12_000;
const EVENT_BYTES = 1_000;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

const store = memoryStore({ maxValues: 100, maxRuns: 100 });
const runId = 'big-run';
await store.setValueIf(
  chatKeys.run(runId),
  0,
  JSON.stringify({ sessionId: 's', agentRunId: runId, outcome: 'completed' }),
);
const payload = 'x'.repeat(EVENT_BYTES - 40);
for (let first = 0; first < EVENTS; first += 1_000) {
  const batch = Array.from({ length: 1_000 }, (_, i) =>
    JSON.stringify({ type: 'text-delta', text: `${first + i} ${payload}` }),
  );
  await store.appendRunEvents(runId, first, batch, { ttlMs: 3_600_000 });
}
// The run has ended: no runner is asked for anything.
const runner: ChatRunner = {
  start: async () => {},
  continue: async () => {},
  stop: async () => {},
  close: async () => {},
};
const handler = createChatHandler({ runner, store, sse: { heartbeatMs: 0 } });
const server = createServer((req, res) => void handler.node(req, res));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as { port: number };

function stalledReader(): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => {
      socket.write(`GET /api/runs/${runId}/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      // Read the first bytes (the response head), then never again.
      socket.once('data', () => {
        socket.pause();
        resolve(socket);
      });
    });
  });
}

const rows: string[] = [];
const sockets: Socket[] = [];
gc();
const base = process.memoryUsage();
for (const readers of steps) {
  while (sockets.length < readers) sockets.push(await stalledReader());
  await sleep(1_500); // the writes stall once the socket buffers are full
  gc();
  const m = process.memoryUsage();
  rows.push(
    `| ${readers} | ${mb(m.heapUsed)} | ${mb(m.external + m.arrayBuffers)} | ${mb(m.rss)} | ${mb(m.rss - base.rss)} |`,
  );
  console.log(rows.at(-1));
}
for (const socket of sockets) socket.destroy();
await handler.close();
server.closeAllConnections();
server.close();

const report = [
  `Stalled SSE readers, one ended run of ${EVENTS} events x ${EVENT_BYTES} B (~${mb(EVENTS * EVENT_BYTES)} MB log), memory store.`,
  `Node ${process.version}, ${os.cpus().length} cores, ${new Date().toISOString()}.`,
  '',
  '| stalled readers | heap used MB | external + arrayBuffers MB | RSS MB | RSS growth MB |',
  '|---|---|---|---|---|',
  ...rows,
  '',
].join('\n');
const out = arg('out');
if (out) writeFileSync(out, report);
console.log(report);
