/**
 * Fleet-wide rate limits: throughput of 4 worker processes against a service limit (the emulator's
 * rateLimit fault) and the 429s they meet, and the latency a budget check adds to each model request, on
 * Redis and on PostgreSQL. Needs Redis on 6379 and PostgreSQL on 5432 (db `test`, user `postgres`).
 * Run: npx tsx bench/rate-limits/rate-limits.ts [--runs=400] [--rpm=600] [--checks=2000] [--only=redis|postgres]
 * (writes bench/results/<date>-rate-limits.md)
 */
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../src/emulator/index.js';
import { createFleetRateLimiter } from '../../src/queue/fleet-rate-limiter.js';
import { createLimitsBackend, limitsPrefix } from '../../src/queue/create-limits-backend.js';
import { normalizeConnection } from '../../src/queue/queue-connection.js';
import { normalizeRateLimits } from '../../src/queue/rate-limits.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { queueBackends } from '../../test/helpers/queue-backends.js';
import { spawnLimitsWorker, stopWorker } from '../../test/helpers/spawn-limits-worker.js';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const RUNS = arg('runs', 400);
const RPM = arg('rpm', 600);
const CHECKS = arg('checks', 2000);
const WORKERS = 4;
/** The fleet's budget: 5 % under the service's, for the jitter between taking budget and arriving. */
const FLEET_RPM = Math.floor(RPM * 0.95);

const lines: string[] = [];
const log = (line = '') => {
  console.log(line);
  lines.push(line);
};

/**
 * Runs RUNS queued runs on WORKERS processes, timed from the first model request to the last run's end
 * (queueing them is not timed). `limited` false: no service limit and no fleet limits, the machine's own
 * ceiling, which the limited case cannot pass.
 */
async function throughput(backend: (typeof queueBackends)[number], limited: boolean) {
  const emu = await startEmulator({
    faults: limited ? [{ path: '/chat/completions', model: 'svc-3.5-flash', rateLimit: { requests: RPM } }] : [],
  });
  const ns = backend.create();
  const queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
  const workers: ChildProcess[] = [];
  try {
    const config = {
      backend: backend.name,
      connection: ns.connection,
      store: ns.storeOptions,
      queueName: ns.queueName,
      baseURL: emu.baseURL,
      concurrency: 8,
      limits: limited ? { models: { 'svc-3.5-flash': { requests: FLEET_RPM } } } : {},
    };
    const runIds = await Promise.all(
      Array.from({ length: RUNS }, (_, i) => queue.enqueue('short', `Say hello ${i}`, { tenant: `t${i % 4}` })),
    );
    // Arrivals at the service, sampled: the rate is taken over the middle three quarters of the requests,
    // past the workers' first requests, which reach the service late (modules load after the budget).
    const samples: Array<{ at: number; count: number }> = [];
    const chat = () => emu.requests().filter((request) => request.path === '/v1/chat/completions').length;
    const sampler = setInterval(() => samples.push({ at: performance.now(), count: chat() }), 50);
    const spawning = Promise.all(Array.from({ length: WORKERS }, () => spawnLimitsWorker(config, emu.apiKey)));
    workers.push(...(await spawning));
    const records = await Promise.all(runIds.map((id) => queue.waitUntilFinished(id, { timeout: 30 * 60_000 })));
    clearInterval(sampler);
    const requests = chat();
    const from = samples.find((sample) => sample.count >= requests / 8)!;
    const to = samples.find((sample) => sample.count >= (requests * 7) / 8)!;
    const minutes = (to.at - from.at) / 60_000;
    const failed = records.filter((record) => record.status !== 'completed').length;
    const achieved = (to.count - from.count) / minutes;
    return {
      backend: `${backend.name}${limited ? '' : ' (no limits: the machine)'}`,
      failed,
      rateLimited: requests - RUNS,
      windows: Math.ceil((samples.at(-1)!.at - samples[0]!.at) / 60_000),
      achieved,
      ofService: achieved / RPM,
      ofFleet: achieved / FLEET_RPM,
    };
  } finally {
    await Promise.all(workers.map(stopWorker));
    await queue.close();
    await ns.cleanup();
    await emu.close();
  }
}

async function checkLatency(backend: (typeof queueBackends)[number]) {
  const ns = backend.create();
  const connection = normalizeConnection(ns.connection);
  // A budget far above what the checks use: every check is admitted, so this is the check's own cost.
  const limits = normalizeRateLimits({ models: { '*': { requests: 1e9, tokens: 1e12 } }, account: { requests: 1e9 } });
  const limitsBackend = createLimitsBackend(connection, ns.queueName, limits.windowMs);
  const limiter = createFleetRateLimiter({
    limits,
    backend: limitsBackend,
    prefix: limitsPrefix(ns.queueName),
    onError: (error) => {
      throw error;
    },
  });
  const budget = limiter.forRun({ tenant: 'bench' });
  const params = {
    model: 'svc-3.5-flash',
    messages: [
      { role: 'system' as const, content: 'You answer questions about the weather.' },
      { role: 'user' as const, content: 'What is the weather in Paris today, and should I take an umbrella?' },
    ],
  };
  const times: number[] = [];
  try {
    for (let i = 0; i < CHECKS + 200; i++) {
      const start = performance.now();
      const lease = await budget.acquire({ params, signal: undefined });
      const elapsed = performance.now() - start;
      lease.settle({ prompt_tokens: 30, completion_tokens: 20, total_tokens: 50 });
      if (i >= 200) times.push(elapsed);
    }
  } finally {
    await limitsBackend.close();
    await ns.cleanup();
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { backend: backend.name, p50: at(0.5), p90: at(0.9), p99: at(0.99) };
}

const only = process.argv.find((a) => a.startsWith('--only='))?.split('=')[1];
const available = queueBackends.filter((backend) => backend.available && (!only || backend.name === only));
log(`# Fleet-wide rate limits (${new Date().toISOString().slice(0, 10)})`);
log();
log(`${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at start, Node ${process.version}.`);
log(`Command: \`npx tsx bench/rate-limits/rate-limits.ts --runs=${RUNS} --rpm=${RPM} --checks=${CHECKS}\``);
log();
log(`## Throughput: ${WORKERS} worker processes x 8 runs, ${RUNS} one-turn runs`);
log();
log(`Service limit (emulator rateLimit fault): ${RPM} requests/min; fleet limit: ${FLEET_RPM}/min.`);
log();
log("Runs are queued first; the rate is the service's arrivals over the middle three quarters of the requests.");
log("The \"no limits\" rows are the same fleet without the service's limit or the fleet's: the machine's ceiling.");
log();
log('| backend | failed runs | 429s | minutes (windows) | achieved req/min | of service limit | of fleet limit |');
log('|---|---|---|---|---|---|---|');
for (const backend of available) for (const limited of [false, true]) {
  const r = await throughput(backend, limited);
  log(
    `| ${r.backend} | ${r.failed} | ${r.rateLimited} | ${r.windows} | ${r.achieved.toFixed(0)} | ${(r.ofService * 100).toFixed(1)} % | ${(r.ofFleet * 100).toFixed(1)} % |`,
  );
}
log();
log(`## Added latency of the budget check, per model request (${CHECKS} sequential checks, after 200 warm-up)`);
log();
log('Estimate with the local tokenizer + one take from the model and account buckets; the usage correction');
log('and the stats counters are not awaited by the request.');
log();
log('| backend | p50 ms | p90 ms | p99 ms |');
log('|---|---|---|---|');
for (const backend of available) {
  const r = await checkLatency(backend);
  log(`| ${r.backend} | ${r.p50.toFixed(3)} | ${r.p90.toFixed(3)} | ${r.p99.toFixed(3)} |`);
}
const out = fileURLToPath(new URL(`../results/${new Date().toISOString().slice(0, 10)}-rate-limits.md`, import.meta.url));
await writeFile(out, `${lines.join('\n')}\n`);
console.log(`written: ${out}`);
process.exit(0);
