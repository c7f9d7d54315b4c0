// npm run bench [-- --quick] [--only=raw,svc-agents] [--skip=cpu,decode,latency,rss,import] [--rounds=N]
//   [--warmup-rounds=N] [--no-build]
// Starts the fake server, one worker process per contestant, and measures them interleaved
// (A B C D, then B C D A, ...) so drift in the machine hits every contestant alike.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CONTESTANT_CORE, execNodePinned, pinningNote, SERVER_CORE, spawnNodePinned } from './pin.mjs';
import { renderReport } from './report.mjs';
import { svcAgentsBuilt, svcAgentsEntry } from './svc-agents-entry.mjs';
import { DECODE_CHUNKS } from './workload.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const benchDir = join(here, '..');
const repoDir = join(benchDir, '..');

const args = process.argv.slice(2);
// `npm run bench --quick` (no `--`) reaches us as npm_config_* variables: accept both forms.
const npmConfig = (name) => process.env[`npm_config_${name}`];
const flag = (name) => args.includes(`--${name}`) || npmConfig(name) === 'true';
const option = (name) =>
  args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? (npmConfig(name) || undefined);
const quick = flag('quick');
const skip = new Set((option('skip') ?? '').split(',').filter(Boolean));

const PLAN = quick
  ? {
      rounds: 3,
      warmupRounds: 1,
      decodeWarmups: 1,
      runsC1: 10,
      runsC64: 64,
      warmC1: 10,
      decodeRounds: 3,
      rssRounds: 1,
      rssRuns: 64,
      importRounds: 5,
      latencyRounds: 1,
      latencyRuns: 2,
    }
  : {
      // At least 7 interleaved rounds: fewer medians of per-round ratios moved by more than the margins.
      rounds: 7,
      warmupRounds: 3,
      decodeWarmups: 3,
      runsC1: 30,
      runsC64: 128,
      warmC1: 20,
      decodeRounds: 5,
      rssRounds: 3,
      rssRuns: 128,
      // Median of 15: one sample varies by a third on a loaded 2-core machine.
      importRounds: 15,
      latencyRounds: 3,
      latencyRuns: 2,
    };
if (option('rounds')) PLAN.rounds = Number(option('rounds'));
if (option('warmup-rounds') !== undefined) PLAN.warmupRounds = Number(option('warmup-rounds'));

const ALL = [
  'raw',
  'raw-dispatch',
  'svc-agents',
  'openai-loop',
  'openai-runtools',
  'ai-sdk',
  'openai-agents',
];
const notes = [];

const t0 = Date.now();
function log(...parts) {
  process.stderr.write(
    `[${String(Math.round((Date.now() - t0) / 1000)).padStart(3)} s] ${parts.join(' ')}\n`,
  );
}

function ensureBuild() {
  if (flag('no-build') || process.env.SVC_AGENTS_ENTRY) return;
  const entry = join(repoDir, 'dist', 'index.js');
  const src = join(repoDir, 'src', 'index.ts');
  let stale = true;
  try {
    stale = statSync(entry).mtimeMs < newestMtime(join(repoDir, 'src'));
  } catch {}
  try {
    statSync(src);
  } catch {
    notes.push('svc-agents skipped: src/index.ts does not exist yet.');
    return;
  }
  if (!stale) return;
  log('building svc-agents (npm run build at the repo root) ...');
  try {
    execFileSync('npm', ['run', 'build'], { cwd: repoDir, stdio: ['ignore', 'ignore', 'inherit'] });
  } catch {
    // tsc still emits when other files have type errors; the import below tells whether it is usable.
    notes.push('`npm run build` reported errors; the emitted dist/ was used anyway.');
  }
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirRecursive(dir)) newest = Math.max(newest, statSync(entry).mtimeMs);
  return newest;
}

function readdirRecursive(dir) {
  return readdirSyncSafe(dir).flatMap((e) =>
    e.isDirectory() ? readdirRecursive(join(dir, e.name)) : [join(dir, e.name)],
  );
}

function readdirSyncSafe(dir) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

async function startServer() {
  const child = spawnNodePinned(SERVER_CORE, [join(here, 'fake-server.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`fake server exited with ${code}`)));
  });
  const { port } = JSON.parse(line);
  return { child, baseURL: `http://127.0.0.1:${port}` };
}

/** A contestant's worker process, with a promise-returning `call(type, payload)`. */
async function startWorker(name, baseURL) {
  const child = spawnNodePinned(CONTESTANT_CORE, ['--expose-gc', join(here, 'worker.mjs'), name], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map();
  let nextId = 0;
  let exited;
  const ready = new Promise((resolve, reject) => {
    child.on('message', (msg) => {
      if (msg.ready) return resolve();
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.ok) p?.resolve(msg.result);
      else p?.reject(new Error(msg.error));
    });
    child.once('exit', (code) => {
      exited = new Error(`${name} worker exited with ${code}`);
      reject(exited);
      for (const p of pending.values()) p.reject(exited);
    });
  });
  await ready;
  // A call that hangs (a peer stuck on a stream) must not hang the whole bench: kill the worker.
  const call = (type, payload = {}, timeoutMs = 180_000) =>
    new Promise((resolve, reject) => {
      if (exited) return reject(exited);
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        child.kill('SIGKILL');
        reject(
          new Error(`${name}: ${type} ${JSON.stringify(payload)} timed out after ${timeoutMs / 1000} s`),
        );
      }, timeoutMs);
      pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      child.send({ id, type, ...payload });
    });
  const info = await call('setup', { baseURL });
  return {
    name,
    baseURL,
    call,
    info,
    stop: () => call('exit', {}, 10_000).catch(() => child.kill('SIGKILL')),
  };
}

async function serverStats(baseURL) {
  // The driver's own connection is counted too; it is one per measurement, never per run.
  const res = await fetch(`${baseURL}/stats`);
  return res.json();
}

function rotate(list, by) {
  return list.map((_, i) => list[(i + by) % list.length]);
}

const SCENARIOS = [
  { key: 'ns-c1', stream: false, concurrency: 1 },
  { key: 's-c1', stream: true, concurrency: 1 },
  { key: 'ns-c64', stream: false, concurrency: 64 },
  { key: 's-c64', stream: true, concurrency: 64 },
];

async function measureCpu(workers, results) {
  log('warming up ...');
  for (const w of workers) {
    for (const s of SCENARIOS) {
      await w.call('cpu', {
        stream: s.stream,
        concurrency: s.concurrency,
        runs: s.concurrency === 1 ? PLAN.warmC1 : 64,
      });
    }
  }
  // The issue asks what a run costs in a long-lived backend process: steady state, with the JIT done.
  // Without these rounds every contestant was still compiling through the measured ones (CPU per run
  // kept falling for ~10 rounds), so the ratios partly measured compile time. Same plan, not recorded.
  for (let round = 0; round < PLAN.warmupRounds; round++) {
    log(`warm-up round ${round + 1}/${PLAN.warmupRounds}`);
    for (const s of SCENARIOS) {
      for (const w of rotate(workers, round)) {
        const runs = s.concurrency === 1 ? PLAN.runsC1 : PLAN.runsC64;
        await w.call('cpu', { stream: s.stream, concurrency: s.concurrency, runs });
      }
    }
  }
  for (let round = 0; round < PLAN.rounds; round++) {
    log(`cpu round ${round + 1}/${PLAN.rounds}`);
    for (const s of SCENARIOS) {
      for (const w of rotate(workers, round)) {
        const runs = s.concurrency === 1 ? PLAN.runsC1 : PLAN.runsC64;
        // A worker sits idle for seconds while the others run, and an idle V8 process shrinks its heap:
        // its first runs afterwards cost 2-3x (raw non-streamed c=64: 0.74-1.59 ms per run after 6 s idle,
        // ~0.35-0.4 without). One unrecorded batch of the same scenario first, for every contestant.
        await w.call('cpu', {
          stream: s.stream,
          concurrency: s.concurrency,
          runs: s.concurrency === 1 ? 10 : 64,
        });
        const before = await serverStats(w.baseURL);
        const r = await w.call('cpu', { stream: s.stream, concurrency: s.concurrency, runs });
        const after = await serverStats(w.baseURL);
        push(results, ['connections', s.key, w.name], (after.connections - before.connections) / runs, round);
        push(results, ['cpu', s.key, w.name], r.cpuMsPerRun, round);
        push(results, ['wall', s.key, w.name], r.wallMsMedian, round);
        push(results, ['throughput', s.key, w.name], r.runsPerSec, round);
      }
    }
  }
}

async function measureDecode(workers, results) {
  const decoders = workers.filter((w) => w.info.decode);
  for (let i = 0; i < PLAN.decodeWarmups; i++) {
    for (const w of decoders) await w.call('decode', { model: `decode-${DECODE_CHUNKS}` });
  }
  for (let round = 0; round < PLAN.decodeRounds; round++) {
    log(`decode round ${round + 1}/${PLAN.decodeRounds}`);
    for (const w of rotate(decoders, round)) {
      const r = await w.call('decode', { model: `decode-${DECODE_CHUNKS}` });
      push(results, ['decode-cpu', 'all', w.name], (DECODE_CHUNKS * 1000) / r.cpuMs, round);
      push(results, ['decode-wall', 'all', w.name], (DECODE_CHUNKS * 1000) / r.wallMs, round);
    }
  }
}

/** The slow-stream multi-tool workload, interleaved: every contestant's modes once per round. */
async function measureLatency(workers, results) {
  const entries = workers.flatMap((w) => w.info.latencyModes.map((mode) => ({ w, mode })));
  for (let round = 0; round < PLAN.latencyRounds; round++) {
    log(`latency round ${round + 1}/${PLAN.latencyRounds}`);
    for (const { w, mode } of rotate(entries, round)) {
      const r = await w.call('latency', { mode, runs: PLAN.latencyRuns });
      const key = `${w.name}|${mode}`;
      push(results, ['latency-wall', 'all', key], r.wallMs, round);
      for (const [call, delay] of r.delaysMs.entries()) {
        push(results, ['latency-delay', String(call), key], delay, round);
      }
    }
  }
}

async function measureRss(names, baseURL, results) {
  for (let round = 0; round < PLAN.rssRounds; round++) {
    log(`rss round ${round + 1}/${PLAN.rssRounds}`);
    for (const stream of [false, true]) {
      for (const name of rotate(names, round)) {
        // A fresh process each time: a heap that already grew in earlier batches would hide the growth.
        const t0 = Date.now();
        const w = await startWorker(name, baseURL);
        const t1 = Date.now();
        let r;
        try {
          // One run first, so lazily loaded code is not counted as growth; nothing else has run yet.
          await w.call('cpu', { stream, concurrency: 1, runs: 1 });
          r = await w.call('rss', { stream, concurrency: 64, runs: PLAN.rssRuns });
        } catch (error) {
          notes.push(`rss round ${round + 1}: ${String(error.message).split('\n')[0]}`);
          continue;
        } finally {
          await w.stop();
          log(
            `  ${name} ${stream ? 'streamed' : 'non-streamed'}: start ${t1 - t0} ms, total ${Date.now() - t0} ms`,
          );
        }
        push(results, ['rss', stream ? 's-c64' : 'ns-c64', name], r.growthBytes / 2 ** 20, round);
        push(
          results,
          ['rss-peak', stream ? 's-c64' : 'ns-c64', name],
          (r.rssBefore + r.growthBytes) / 2 ** 20,
          round,
        );
      }
    }
  }
}

const IMPORTS = {
  undici: ['undici'],
  'svc-agents': null, // filled in with the built entry's URL
  zod: ['zod'],
  openai: ['openai'],
  // What a user's program imports: the library with the zod its tools are written in (issue 26's figure).
  'svc-agents + zod': null,
  'openai + zod': ['zod', 'openai'],
  'ai-sdk': ['ai', '@ai-sdk/openai-compatible'],
  'openai-agents': ['@openai/agents'],
};

async function measureImports(withSvc, results) {
  const svc = (k) => (k === 'svc-agents' ? [svcAgentsEntry()] : ['zod', svcAgentsEntry()]);
  const probe = (specs) => {
    const out = execNodePinned(CONTESTANT_CORE, [join(here, 'import-probe.mjs'), ...specs], {
      cwd: here,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return JSON.parse(out.toString());
  };
  // A peer that is not installed (bench/node_modules missing) is left out and named in the notes.
  const entries = Object.entries(IMPORTS)
    .map(([k, v]) => [k, k.startsWith('svc-agents') ? (withSvc ? svc(k) : null) : v])
    .filter(([k, specs]) => {
      if (!specs) return false;
      try {
        probe(specs); // also fills the OS file cache
        return true;
      } catch {
        notes.push(`cold import of ${k} skipped: ${specs.join(' + ')} could not be imported.`);
        return false;
      }
    });
  for (let round = 0; round < PLAN.importRounds; round++) {
    for (const [name, specs] of rotate(entries, round)) {
      const { ms, cpuMs } = probe(specs);
      push(results, ['import', 'cold', name], ms, round);
      push(results, ['import-cpu', 'cold', name], cpuMs, round);
    }
  }
}

function push(results, [measure, scenario, name], value, round) {
  const key = `${measure}|${scenario}`;
  results[key] ??= {};
  results[key][name] ??= [];
  results[key][name][round] = value;
}

function versions() {
  const v = {};
  for (const p of ['undici', 'zod', 'openai', 'ai', '@ai-sdk/openai-compatible', '@openai/agents']) {
    try {
      v[p] = JSON.parse(readFileSync(join(benchDir, 'node_modules', p, 'package.json'), 'utf8')).version;
    } catch {
      v[p] = 'missing';
    }
  }
  try {
    v['svc-agents'] =
      `${JSON.parse(readFileSync(join(repoDir, 'package.json'), 'utf8')).version} @ ${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoDir }).toString().trim()}`;
  } catch {}
  return v;
}

const loadAtStart = os.loadavg();

async function main() {
  const started = Date.now();
  ensureBuild();
  let names = ALL;
  if (option('only')) names = option('only').split(',');
  let withSvc = names.includes('svc-agents');
  if (withSvc && !svcAgentsBuilt()) {
    notes.push('svc-agents skipped: no built entry (dist/index.js).');
    withSvc = false;
  }
  if (withSvc) {
    try {
      const m = await import(svcAgentsEntry());
      if (!m.Agent || !m.SvcClient || !m.defineTool)
        throw new Error('Agent, SvcClient or defineTool is not exported');
    } catch (error) {
      notes.push(`svc-agents skipped: ${String(error.message).split('\n')[0]}`);
      withSvc = false;
    }
  }
  if (!withSvc) names = names.filter((n) => n !== 'svc-agents');

  const server = await startServer();
  const results = {};
  try {
    if (!skip.has('import')) {
      log('cold imports ...');
      await measureImports(withSvc, results);
    }
    const workers = [];
    for (const name of names) {
      try {
        const w = await startWorker(name, server.baseURL);
        // Both modes must complete the scripted conversation before anything is measured.
        await w.call('cpu', { stream: false, concurrency: 1, runs: 1 });
        await w.call('cpu', { stream: true, concurrency: 1, runs: 1 });
        workers.push(w);
      } catch (error) {
        notes.push(
          `${name} dropped: it failed the workload: ${String(error.message).split('\n').slice(0, 3).join(' ')}`,
        );
      }
    }
    const ok = workers.map((w) => w.name);
    if (!skip.has('cpu')) await measureCpu(workers, results);
    if (!skip.has('decode')) await measureDecode(workers, results);
    if (!skip.has('latency')) await measureLatency(workers, results);
    await Promise.all(workers.map((w) => w.stop()));
    if (!skip.has('rss')) await measureRss(ok, server.baseURL, results);

    const seconds = Math.round((Date.now() - started) / 1000);
    const date = new Date().toISOString().slice(0, 10);
    const markdown = renderReport({
      date,
      quick,
      plan: PLAN,
      seconds,
      results,
      contestants: ok,
      notes,
      env: {
        node: process.version,
        cpu: os.cpus()[0]?.model ?? 'unknown',
        cores: os.availableParallelism?.() ?? os.cpus().length,
        pinning: pinningNote(),
        platform: `${os.platform()} ${os.release()}`,
        load: `${loadAtStart.map((x) => x.toFixed(1)).join(' / ')} at start, ${os
          .loadavg()
          .map((x) => x.toFixed(1))
          .join(' / ')} at end`,
        versions: versions(),
      },
    });
    process.stdout.write(`${markdown}\n`);
    if (!option('only') && skip.size === 0) {
      mkdirSync(join(benchDir, 'results'), { recursive: true });
      const file = join(benchDir, 'results', `${date}${quick ? '-quick' : ''}.md`);
      writeFileSync(file, `${markdown}\n`);
      // A --quick smoke check never replaces the data of the latest full run (the one the README links).
      writeFileSync(
        join(benchDir, 'results', quick ? 'latest-quick.json' : 'latest.json'),
        `${JSON.stringify({ date, quick, file: file.slice(benchDir.length + 1), results }, null, 1)}\n`,
      );
      log(`wrote ${file}`);
    }
  } finally {
    server.child.kill('SIGTERM');
  }
}

main().catch((error) => {
  log(error?.stack ?? String(error));
  process.exit(1);
});
