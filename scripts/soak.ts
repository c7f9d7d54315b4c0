// Load soak on loopback, in two parts. Requests: N chat requests (streamed and not, some answered with
// faults) at concurrency C against the in-process emulator, heap sampled as it goes. Agent runs: R
// complete streamed agent runs at concurrency C (early-started idempotent tools, guardrails, approvals,
// a sub-agent, aborts; see soak-agent-runs.ts), heap after GC taken at run 1,000 and at the end. Prints
// the figures; exits 1 when the heap after the requests' last quarter is more than 1.5x the heap after
// the first, when the heap after GC grew by 1 MB or more from run 1,000 to the last run (a leak), or
// when a request or run fails in a way it should not. A count of 0 skips that part.
//   node --expose-gc --import tsx scripts/soak.ts [requests=76800] [concurrency=64] [agentRuns=20000]
// test/agent/agent-run-soak.integration.test.ts runs the agent part at CI size.
import { SvcClient } from '../src/api/svc-client.js';
import { APIError } from '../src/core/errors.js';
import { startEmulator } from '../src/emulator/index.js';
import { soakAgentRuns } from './soak-agent-runs.js';

const total = Number(process.argv[2] ?? 76_800);
const concurrency = Number(process.argv[3] ?? 64);
const agentRuns = Number(process.argv[4] ?? 20_000);
const gc = (globalThis as { gc?: () => void }).gc;

/** The request part: chat requests straight through the client, some answered with faults. */
async function soakRequests(): Promise<{ failed: boolean; report: Record<string, unknown> }> {
  const emu = await startEmulator({
    port: 0,
    host: '127.0.0.1',
    // One request in 50 is answered with a 503 and one in 50 is cut mid-stream: the failure paths soak too.
    model: { wordsPerChunk: 4 },
  });
  const client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0, timeout: 10_000 });
  const faulty = new SvcClient({
    apiKey: emu.apiKey,
    baseURL: emu.baseURL,
    maxRetries: 0,
    timeout: 10_000,
    defaultHeaders: { 'x-emulator-fault': 'cut=200' },
  });
  const busy = new SvcClient({
    apiKey: emu.apiKey,
    baseURL: emu.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-emulator-fault': 'status=503' },
  });

  const heap = (): number => {
    // The emulator's own request log (bounded) would count as ours: emptied before each sample.
    emu.reset();
    gc?.();
    return process.memoryUsage().heapUsed;
  };
  const samples: number[] = [];
  let next = 0;
  let ok = 0;
  let expectedFailures = 0;
  let unexpected = 0;
  const messages = [{ role: 'user' as const, content: 'Say something short about the sea.' }];

  async function one(i: number): Promise<void> {
    const kind = i % 50;
    try {
      if (kind === 0) {
        await busy.chat.completions.create({ model: 'svc-3.5-flash', messages });
      } else if (kind === 1) {
        const stream = await faulty.chat.completions.create({
          model: 'svc-3.5-flash',
          messages,
          stream: true,
        });
        await stream.finalCompletion();
      } else if (i % 2 === 0) {
        const stream = await client.chat.completions.create({
          model: 'svc-3.5-flash',
          messages,
          stream: true,
        });
        await stream.finalCompletion();
      } else {
        await client.chat.completions.create({ model: 'svc-3.5-flash', messages });
      }
      if (kind <= 1) unexpected++;
      else ok++;
    } catch (error) {
      if (kind <= 1 && error instanceof APIError && error.isRetryable) expectedFailures++;
      else {
        unexpected++;
        if (unexpected <= 3) console.error(error);
      }
    }
  }

  async function worker(): Promise<void> {
    while (next < total) {
      const i = next++;
      await one(i);
      if (i % Math.max(1, Math.floor(total / 16)) === 0) samples.push(heap());
    }
  }

  const startHeap = heap();
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  const endHeap = heap();
  await Promise.all([client.close(), faulty.close(), busy.close()]);
  await emu.close();

  const quarter = Math.max(1, Math.floor(samples.length / 4));
  const early = Math.max(...samples.slice(0, quarter));
  const late = Math.max(...samples.slice(-quarter));
  return {
    failed: unexpected > 0 || late > early * 1.5,
    report: {
      requests: total,
      concurrency,
      ok,
      expectedFailures,
      unexpected,
      seconds: Number(seconds.toFixed(1)),
      requestsPerSecond: Math.round(total / seconds),
      heapStart: mb(startHeap),
      heapEarlyQuarterMax: mb(early),
      heapLateQuarterMax: mb(late),
      heapEnd: mb(endHeap),
      rss: mb(process.memoryUsage().rss),
      gcExposed: gc !== undefined,
    },
  };
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const report: Record<string, unknown> = {};
let failed = false;
if (total > 0) {
  const requests = await soakRequests();
  report.requests = requests.report;
  failed ||= requests.failed;
}
if (agentRuns > 0) {
  // Run 1,000 is the baseline (JIT, pools and caches warmed up); a run shorter than 3,000 starts earlier.
  const baselineAt = Math.min(1_000, Math.floor(agentRuns / 3));
  const runs = await soakAgentRuns({ runs: agentRuns, concurrency, baselineAt });
  report.agentRuns = {
    ...runs,
    heapAt: Object.fromEntries(Object.entries(runs.heapAt).map(([at, bytes]) => [at, mb(bytes)])),
    growth: `${(runs.growth / 2 ** 10).toFixed(0)} KB`,
    growthBytes: runs.growth,
  };
  failed ||= runs.unexpected > 0 || runs.growth >= 2 ** 20;
}
console.log(JSON.stringify(report, null, 2));
process.exitCode = failed ? 1 : 0;
