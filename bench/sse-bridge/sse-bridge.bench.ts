/**
 * What does the SSE bridge cost? 100 concurrent agent streams of synthetic `text-delta` events go over
 * real HTTP (node:http on 127.0.0.1) to 100 fetch clients that parse SSE with svc-agents/client's parser.
 * Plain node, no framework, from the repo root:
 *   node --import tsx bench/sse-bridge/sse-bridge.bench.ts [--quick]
 * Writes bench/results/sse-bridge.md (and prints it).
 *
 * Variants, same events, same clients:
 * - in-process: `for await` over the AgentStream, no HTTP: the floor every bridge adds to.
 * - raw: a hand-written bridge: `res.write('data: ' + JSON.stringify(event) + '\n\n')` per event.
 * - pipeTo: `stream.pipeTo(res)` (ids, retry, heartbeats, back pressure, abort on disconnect).
 * - toResponse: `stream.toResponse()`, a Web Response written to node:http by `handleNodeRequest`.
 * Two measurements: throughput (events emitted as fast as the loop allows) and added latency per event
 * (each stream emits one event every 10 ms, so 100 streams make 10,000 events/s; the event carries
 * its emit time and the client subtracts it on arrival; server and clients share one process and clock).
 */
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Agent as UndiciAgent, fetch as undiciFetch } from 'undici';
import { AgentStream } from '../../src/agent/agent-stream.js';
import type { RunResult } from '../../src/agent/run-result.js';
import { parseSse } from '../../src/browser-client/parse-sse.js';
import { handleNodeRequest } from '../../src/web/handle-node-request.js';

const quick = process.argv.includes('--quick');
const STREAMS = 100;
const THROUGHPUT_EVENTS = quick ? 500 : 2_000;
const LATENCY_EVENTS = quick ? 100 : 300;
const LATENCY_INTERVAL_MS = 10;
const ROUNDS = quick ? 1 : 3;

type Mode = 'throughput' | 'latency';

/** A stream of `count` text-delta events; in latency mode one every 10 ms, each carrying its emit time. */
function syntheticStream(mode: Mode, count: number): AgentStream {
  return new AgentStream(async ({ emit, signal }) => {
    emit({ type: 'start' });
    for (let i = 0; i < count && !signal.aborted; i++) {
      if (mode === 'latency') await new Promise((resolve) => setTimeout(resolve, LATENCY_INTERVAL_MS));
      else if (i % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
      emit({ type: 'text-delta', text: String(performance.now()) });
    }
    emit({ type: 'finish', finishReason: 'stop', usage: {} as never });
    return {} as RunResult;
  });
}

async function rawPipe(stream: AgentStream, res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for await (const event of stream) res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end();
}

const variants: Record<string, (stream: AgentStream, req: IncomingMessage, res: ServerResponse) => Promise<void>> = {
  raw: (stream, _req, res) => rawPipe(stream, res),
  pipeTo: (stream, _req, res) => stream.pipeTo(res, { heartbeatMs: 0 }),
  toResponse: (stream, req, res) => handleNodeRequest(async () => stream.toResponse({ heartbeatMs: 0 }), req, res),
};

interface Sample {
  events: number;
  seconds: number;
  latencies: number[];
}

async function runInProcess(mode: Mode, count: number): Promise<Sample> {
  const latencies: number[] = [];
  let events = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: STREAMS }, async () => {
      for await (const event of syntheticStream(mode, count)) {
        if (event.type !== 'text-delta') continue;
        events++;
        if (mode === 'latency') latencies.push(performance.now() - Number(event.text));
      }
    }),
  );
  return { events, seconds: (performance.now() - start) / 1000, latencies };
}

async function runOverHttp(variant: string, mode: Mode, count: number): Promise<Sample> {
  const pipe = variants[variant]!;
  const server = createServer((req, res) => void pipe(syntheticStream(mode, count), req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const dispatcher = new UndiciAgent({ connections: STREAMS * 2 });
  const latencies: number[] = [];
  let events = 0;
  const start = performance.now();
  try {
    await Promise.all(
      Array.from({ length: STREAMS }, async () => {
        const response = await undiciFetch(url, { dispatcher });
        for await (const item of parseSse(response.body as ReadableStream<Uint8Array>)) {
          if (item.kind !== 'message') continue;
          const event = JSON.parse(item.message.data) as { type: string; text?: string };
          if (event.type !== 'text-delta') continue;
          events++;
          if (mode === 'latency') latencies.push(performance.now() - Number(event.text));
        }
      }),
    );
  } finally {
    await dispatcher.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  return { events, seconds: (performance.now() - start) / 1000, latencies };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
};

const names = ['in-process', 'raw', 'pipeTo', 'toResponse'];
const throughput: Record<string, number[]> = {};
const latency: Record<string, { p50: number[]; p99: number[] }> = {};
const load0 = os.loadavg();
const began = performance.now();
// Warm-up, unrecorded.
for (const name of names)
  await (name === 'in-process' ? runInProcess('throughput', 200) : runOverHttp(name, 'throughput', 200));
for (let round = 0; round < ROUNDS; round++) {
  for (const name of names) {
    const t =
      name === 'in-process'
        ? await runInProcess('throughput', THROUGHPUT_EVENTS)
        : await runOverHttp(name, 'throughput', THROUGHPUT_EVENTS);
    if (t.events !== STREAMS * THROUGHPUT_EVENTS) throw new Error(`${name}: ${t.events} events arrived`);
    (throughput[name] ??= []).push(t.events / t.seconds);
    const l =
      name === 'in-process'
        ? await runInProcess('latency', LATENCY_EVENTS)
        : await runOverHttp(name, 'latency', LATENCY_EVENTS);
    const entry = (latency[name] ??= { p50: [], p99: [] });
    entry.p50.push(median(l.latencies));
    entry.p99.push(percentile(l.latencies, 0.99));
  }
}
const load1 = os.loadavg();

const fmt = (n: number, digits = 2) => n.toFixed(digits);
const rawEps = median(throughput.raw!);
const base50 = median(latency['in-process']!.p50);
const base99 = median(latency['in-process']!.p99);
const lines = [
  `# SSE bridge benchmark, ${new Date().toISOString().slice(0, 10)}${quick ? ' (quick)' : ''}`,
  '',
  `Node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}, ${os.cpus().length} cores. ${STREAMS} concurrent streams; ` +
    `throughput: ${THROUGHPUT_EVENTS} events per stream as fast as possible; latency: ${LATENCY_EVENTS} events per stream, ` +
    `one every ${LATENCY_INTERVAL_MS} ms (${(STREAMS * 1000) / LATENCY_INTERVAL_MS} events/s in all). Medians over ${ROUNDS} round(s) ` +
    `after a warm-up; server and clients share the process and the cores. Load average ${load0.map((n) => fmt(n, 1)).join('/')} at start, ` +
    `${load1.map((n) => fmt(n, 1)).join('/')} at end; whole run ${fmt((performance.now() - began) / 1000, 0)} s.`,
  '',
  '| variant | events/s (throughput) | min-max over rounds | vs raw | latency p50 (ms) | latency p99 (ms) | added p50 / p99 vs in-process (ms) |',
  '|---|---|---|---|---|---|---|',
  ...names.map((name) => {
    const eps = median(throughput[name]!);
    const p50 = median(latency[name]!.p50);
    const p99 = median(latency[name]!.p99);
    const range = `${fmt(Math.min(...throughput[name]!), 0)}-${fmt(Math.max(...throughput[name]!), 0)}`;
    return `| ${name} | ${fmt(eps, 0)} | ${range} | ${name === 'in-process' ? '-' : `${fmt(eps / rawEps)}x`} | ${fmt(p50, 3)} | ${fmt(p99, 3)} | ${
      name === 'in-process' ? '-' : `${fmt(p50 - base50, 3)} / ${fmt(p99 - base99, 3)}`
    } |`;
  }),
  '',
  'in-process counts events a consumer iterates without HTTP (the floor). raw is a hand-written bridge with',
  'none of the protocol features. Events carry ~20 bytes of text; their JSON is ~45 bytes. With a load',
  'average above the core count other processes shared the CPU: compare variants within one run only.',
  '',
];
const report = lines.join('\n');
console.log(report);
if (!quick) writeFileSync(new URL('../results/sse-bridge.md', import.meta.url), report);
