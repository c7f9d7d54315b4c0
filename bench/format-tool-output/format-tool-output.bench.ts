/**
 * Does `formatToolOutput`'s fast path (plain data straight to `JSON.stringify`) pay against the careful
 * walk it falls back to? Plain node, no framework, from the repo root:
 *   node --import tsx bench/format-tool-output/format-tool-output.bench.ts
 * Prints ns per call (median of the runs) for each output shape, fast path and careful walk.
 */
import { toText, toTextCarefully } from '../../src/tools/format-tool-output.js';

const runs = 15;

/** Output shapes: what the bench workload's tool returns, then larger and odder ones. */
const shapes: Record<string, unknown> = {
  'weather (bench workload tool)': { city: 'Paris', tempC: 15, sky: 'clear' },
  'search results (10 hits)': {
    query: 'vector stores',
    total: 10,
    hits: Array.from({ length: 10 }, (_, i) => ({
      id: `file-${i}`,
      score: 0.9 - i / 100,
      title: `Result ${i}`,
      snippet: 'A passage of text that matched the query, a sentence or two long.',
      tags: ['docs', 'guide'],
    })),
  },
  'table (1000 rows)': Array.from({ length: 1000 }, (_, i) => ({ id: i, name: `row ${i}`, ok: i % 2 === 0 })),
  'with a Date': { id: 'evt-1', at: new Date(Date.UTC(2026, 10, 24)), attendees: ['a', 'b'] },
  'with a Map (falls back)': { id: 'evt-1', counts: new Map([['a', 1]]), attendees: ['a', 'b'] },
};

function nsPerCall(convert: (value: unknown) => string, value: unknown): number {
  const iterations = Math.max(200, Math.round(2_000_000 / (toTextCarefully(value).length + 50)));
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) sink += convert(value).length;
  const elapsed = Number(process.hrtime.bigint() - start);
  if (sink === 0) throw new Error('nothing converted');
  return elapsed / iterations;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

console.log(`node ${process.version}, ${runs} runs, median ns per call\n`);
console.log('| output | careful walk | fast path | careful / fast |');
console.log('| --- | ---: | ---: | ---: |');
for (const [name, value] of Object.entries(shapes)) {
  if (toText(value) !== toTextCarefully(value)) throw new Error(`paths disagree on ${name}`);
  const careful: number[] = [];
  const fast: number[] = [];
  for (let run = 0; run < runs; run++) {
    careful.push(nsPerCall(toTextCarefully, value));
    fast.push(nsPerCall(toText, value));
  }
  const c = median(careful);
  const f = median(fast);
  console.log(`| ${name} | ${c.toFixed(0)} | ${f.toFixed(0)} | ${(c / f).toFixed(2)}x |`);
}
