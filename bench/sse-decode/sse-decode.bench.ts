/**
 * How fast does SSE decoding go, next to eventsource-parser@3 (what the AI SDK uses) and next to the
 * JSON.parse every chunk needs anyway? Plain node, no framework:
 *   node --import tsx bench/sse-decode/sse-decode.bench.ts
 * (run from the repo root; eventsource-parser comes from bench/node_modules).
 * Last results: bench/results/2026-11-24-sse-decode.md.
 */
import { createParser } from 'eventsource-parser';
import { SseDecoder } from '../../src/transport/sse/sse-decoder.js';

const eventCount = 20_000;
const runs = 15;

/** A chat chunk; `ascii` content (like the agent bench's tokens) or content with accents and CJK. */
function chunkJson(i: number, ascii = false): string {
  return JSON.stringify({
    id: 'chatcmpl-8a1b2c3d4e',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'svc-4-plus',
    choices: [{ index: 0, delta: { role: '', content: ascii ? ` tok${i % 1000}` : `token ${i} héllo 世界 ` }, finish_reason: '' }],
    usage: { prompt_tokens: 12, completion_tokens: i, total_tokens: 12 + i },
  });
}

const streamOf = (ascii: boolean) =>
  new TextEncoder().encode(
    `${Array.from({ length: eventCount }, (_, i) => `data: ${chunkJson(i, ascii)}\n\n`).join('')}data: [DONE]\n\n`,
  );
let bytes = streamOf(false);

function split(size: number): Uint8Array[] {
  const reads: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) reads.push(bytes.subarray(i, i + size));
  return reads;
}

function ours(reads: Uint8Array[], parse: boolean): number {
  const decoder = new SseDecoder();
  let n = 0;
  for (const read of reads) {
    for (const data of decoder.decode(read)) {
      if (parse) JSON.parse(data);
      n++;
    }
  }
  for (const data of decoder.end()) {
    if (parse) JSON.parse(data);
    n++;
  }
  return n;
}

function eventsourceParser(reads: Uint8Array[], parse: boolean): number {
  const textDecoder = new TextDecoder();
  let n = 0;
  let done = false;
  const parser = createParser({
    onEvent(event) {
      if (done || event.data === '[DONE]') {
        done = true;
        return;
      }
      if (parse) JSON.parse(event.data);
      n++;
    },
  });
  for (const read of reads) parser.feed(textDecoder.decode(read, { stream: true }));
  parser.reset({ consume: true });
  return n;
}

let payloads = Array.from({ length: eventCount }, (_, i) => chunkJson(i));
function jsonOnly(): number {
  for (const p of payloads) JSON.parse(p);
  return payloads.length;
}

/** Runs the contenders in alternating order, round after round, so a busy machine slows them alike. */
function compare(contenders: [name: string, run: () => number][], rounds = runs): void {
  const times = contenders.map(() => [] as number[]);
  for (let round = -2; round < rounds; round++) {
    const order = round % 2 === 0 ? contenders.keys() : [...contenders.keys()].reverse();
    for (const index of order) {
      const [name, run] = contenders[index] as [string, () => number];
      // CPU time, not wall time: other processes on a busy machine then barely move the figures.
      const start = process.cpuUsage();
      const n = run();
      const used = process.cpuUsage(start);
      const ms = (used.user + used.system) / 1000;
      if (n !== eventCount) throw new Error(`${name}: decoded ${n} events, expected ${eventCount}`);
      if (round >= 0) times[index]?.push(ms); // rounds -2 and -1 warm the JIT
    }
  }
  contenders.forEach(([name], index) => {
    const sorted = (times[index] ?? []).sort((a, b) => a - b);
    const min = sorted[0] ?? Number.NaN;
    const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    const mbPerSecond = bytes.length / 1e6 / (min / 1000);
    console.log(
      `${name.padEnd(40)} min ${min.toFixed(1).padStart(6)} ms  median ${median.toFixed(1).padStart(6)} ms  ${mbPerSecond.toFixed(0).padStart(4)} MB/s  ${(eventCount / (min / 1000) / 1e6).toFixed(2)} M events/s`,
    );
  });
}

for (const ascii of [false, true]) {
  bytes = streamOf(ascii);
  payloads = Array.from({ length: eventCount }, (_, i) => chunkJson(i, ascii));
  console.log(
    `${eventCount} chat chunks, ${ascii ? 'ASCII' : 'non-ASCII'} content, ${(bytes.length / 1e6).toFixed(2)} MB, ${runs} rounds (CPU time; min is the figure), node ${process.version}`,
  );
  for (const size of [65_536, 16_384, 1_024, 64]) {
    const reads = split(size);
    console.log(`-- reads of ${size} bytes`);
    compare([
      ['svc-agents SseDecoder', () => ours(reads, false)],
      ['eventsource-parser@3 + TextDecoder', () => eventsourceParser(reads, false)],
    ]);
    compare([
      ['svc-agents SseDecoder + JSON.parse', () => ours(reads, true)],
      ['eventsource-parser@3 + JSON.parse', () => eventsourceParser(reads, true)],
      ['JSON.parse of the payloads alone', jsonOnly],
    ]);
  }
}

// One very long `data:` line (defect 8): decoding must stay linear in its length.
const longLine = new TextEncoder().encode(`data: ${'x'.repeat(20 * 1024 * 1024)}\n\ndata: [DONE]\n\n`);
const longTimes: number[] = [];
for (let round = 0; round < 5; round++) {
  const decoder = new SseDecoder();
  const start = process.cpuUsage();
  let n = 0;
  for (let i = 0; i < longLine.length; i += 16_384) n += decoder.decode(longLine.subarray(i, i + 16_384)).length;
  const used = process.cpuUsage(start);
  if (n !== 1) throw new Error(`long line: decoded ${n} events, expected 1`);
  longTimes.push((used.user + used.system) / 1000);
}
longTimes.sort((a, b) => a - b);
console.log(
  `-- one 20 MiB data line in 16 KiB reads: min ${longTimes[0]?.toFixed(1)} ms  median ${longTimes[2]?.toFixed(1)} ms`,
);
