/**
 * What one run's page costs the server: `GET <base>/api/runs/:id` (timeline, checkpoints with their diffs,
 * messages) for a stored run of N steps with two tool calls each, beside what reading the same record as
 * JSON costs today (`store.getRun` + `JSON.stringify`, the `svc-agents runs show --json` path). Reported per
 * size as the median over rounds of the per-round ratio (inspector / raw JSON), with the absolute medians.
 * Run: npx tsx bench/inspector/run-detail.ts [--steps=10,100,1000] [--rounds=15] [--write]
 *   (in-process, memoryStore; with --write the table goes to bench/results/<date>-inspector-run-detail.md)
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import type { RunRecordInput } from '../../src/agent/durable/store.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { ToolCallLedger } from '../../src/tools/tool-call-ledger.js';
import { createInspectorHandler } from '../../src/web/inspector/create-inspector-handler.js';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const SIZES = arg('steps', '10,100,1000').split(',').map(Number);
const ROUNDS = Number(arg('rounds', '15'));
const WRITE = process.argv.includes('--write');

/** A completed run of `steps` steps, each calling two tools (times and usage as a real run keeps them). */
function recordOf(id: string, steps: number): RunRecordInput {
  const messages: unknown[] = [{ role: 'user', content: 'Plan the quarterly report with the figures.' }];
  const stateSteps: unknown[] = [];
  let at = Date.UTC(2026, 10, 1);
  const usage = { promptTokens: 900, completionTokens: 60, totalTokens: 960, cachedTokens: 512 };
  for (let index = 0; index < steps; index++) {
    const calls = [0, 1].map((n) => ({
      id: `c${index}_${n}`,
      type: 'function',
      function: { name: n === 0 ? 'lookup' : 'sum', arguments: `{"q":"figure ${index}.${n}"}` },
    }));
    const message = { role: 'assistant', content: `Step ${index}: looking the figures up.`, tool_calls: calls };
    messages.push(message);
    const toolResults = calls.map((call, n) => ({
      toolCallId: call.id,
      toolName: call.function.name,
      input: { q: `figure ${index}.${n}` },
      status: 'ok',
      output: { value: index * 10 + n, note: 'x'.repeat(200) },
      content: JSON.stringify({ value: index * 10 + n, note: 'x'.repeat(200) }),
      startedAt: at + 40,
      finishedAt: at + 90 + n * 10,
    }));
    for (const result of toolResults) messages.push({ role: 'tool', tool_call_id: result.toolCallId, content: result.content });
    stateSteps.push({
      index,
      message,
      text: message.content,
      toolCalls: calls.map((call) => ({ toolCallId: call.id, toolName: call.function.name, arguments: call.function.arguments })),
      hostedToolCalls: [],
      toolResults,
      usage,
      finishReason: 'tool_calls',
      model: 'svc-3.5-flash',
      timing: { requestedAt: at, firstTokenAt: at + 12, doneAt: at + 38 },
    });
    at += 120;
  }
  const total = { ...usage, promptTokens: usage.promptTokens * steps, completionTokens: usage.completionTokens * steps, totalTokens: usage.totalTokens * steps, cachedTokens: usage.cachedTokens * steps };
  return {
    id,
    agentName: 'reporter',
    status: 'completed',
    state: { $schemaVersion: 2, turn: steps, messages, steps: stateSteps, usage: total, pendingToolCalls: [], ledger: new ToolCallLedger().toJSON(), outputRepairs: 0 },
    interruptions: [],
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function time(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const store = memoryStore();
const inspector = createInspectorHandler({ store, basePath: '/i' });
const rows: string[] = [];
for (const steps of SIZES) {
  const id = `run-${steps}`;
  await store.createRun(recordOf(id, steps));
  const page = () => inspector.fetch(new Request(`http://bench/i/api/runs/${id}`)).then((response) => response.text());
  const raw = async () => JSON.stringify(await store.getRun(id));
  for (let i = 0; i < 3; i++) await Promise.all([page(), raw()]);
  const ratios: number[] = [];
  const pageMs: number[] = [];
  const rawMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Interleaved, the order alternating, so drift and load hit both alike.
    let pageTime: number;
    let rawTime: number;
    if (round % 2 === 0) {
      pageTime = await time(page);
      rawTime = await time(raw);
    } else {
      rawTime = await time(raw);
      pageTime = await time(page);
    }
    pageMs.push(pageTime);
    rawMs.push(rawTime);
    ratios.push(pageTime / rawTime);
  }
  rows.push(
    `| ${steps} | ${median(pageMs).toFixed(2)} ms | ${median(rawMs).toFixed(2)} ms | ${median(ratios).toFixed(2)}x (min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}) |`,
  );
}
const [load1] = os.loadavg();
const report = [
  `# Inspector run page, ${new Date().toISOString().slice(0, 10)}`,
  '',
  `node ${process.version}, ${os.cpus().length} cores, 1-min load ${load1!.toFixed(2)}; ${ROUNDS} interleaved rounds after 3 warm-up.`,
  '',
  '| steps | GET runs/:id (median) | getRun + JSON.stringify (median) | inspector / raw JSON |',
  '|---|---|---|---|',
  ...rows,
  '',
].join('\n');
process.stdout.write(report);
if (WRITE) await writeFile(`bench/results/${new Date().toISOString().slice(0, 10)}-inspector-run-detail.md`, report);
await inspector.close();
await store.close?.();
