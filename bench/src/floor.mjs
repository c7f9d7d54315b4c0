// node bench/src/floor.mjs [--base=<git ref>] [--rounds=7] [--warmup-rounds=3] [--import-samples=15]
//   [--skip=import,cpu,decode] [--cells=ns-c1,s-c1,ns-c64,s-c64] [--out=bench/results/<file>.md]
//
// svc-agents against the floor (`raw-dispatch`) in the four CPU cells (non-streamed and streamed, c=1
// and c=64) and stream decode, with a build of an earlier commit (`--base`, default: HEAD's parent) as a
// third contestant in the same run, and the cold-import figure (main entry + zod against openai + zod).
//
// Why it is shaped so: on a 2-core machine shared with other work, single measurements of the same build
// vary 15-35% between runs, more than the margins we decide on. So
// - the fake server runs on core 0 and every contestant on core 1 (`taskset`): the server's CPU never
//   competes with the measured process for one core, and a contestant never migrates mid-batch;
// - contestants are interleaved (A B C, then B C A, ...) over at least 7 rounds, so drift in the machine's
//   load hits each alike, and each round's ratio is taken between measurements minutes apart at most;
// - the figure is the median over rounds of the per-round ratio, with its spread (min-max and IQR);
// - the earlier build is a contestant of the same run: "before" and "after" never come from two runs.
// The load average is printed with every figure: read the figures of a loaded machine with that in mind.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CONTESTANT_CORE, execNodePinned, pinningNote, SERVER_CORE, spawnNodePinned } from './pin.mjs';
import { DECODE_CHUNKS } from './workload.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repoDir = resolve(here, '..', '..');
const args = process.argv.slice(2);
const option = (name, fallback) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const skip = new Set(option('skip', '').split(',').filter(Boolean));
// Fewer than 7 rounds is for smoke checks only: the spread of so few ratios says little.
const rounds = Number(option('rounds', '7'));
const warmupRounds = Number(option('warmup-rounds', '3'));
const importSamples = Number(option('import-samples', '15'));
const RUNS = { 1: 30, 64: 128 };
const git = (...a) => execFileSync('git', a, { cwd: repoDir }).toString().trim();
const baseRef = option('base', 'HEAD~1');
const baseSha = git('rev-parse', '--short', baseRef);
const headSha = git('rev-parse', '--short', 'HEAD');
const dirty = git('status', '--porcelain', '--untracked-files=no', 'src') !== '';

const t0 = Date.now();
const log = (...parts) =>
  process.stderr.write(
    `[${String(Math.round((Date.now() - t0) / 1000)).padStart(4)} s] ${parts.join(' ')}\n`,
  );
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');

/** Bundles the working tree's src (what `npm run build` bundles; types are not needed to run it). */
function buildHead() {
  execFileSync(process.execPath, ['scripts/bundle.mjs'], {
    cwd: repoDir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return join(repoDir, 'dist', 'index.js');
}

/**
 * A bundle of `ref` in a temp folder: `git archive` of the commit (no worktree or stash touches the shared
 * repository), the repo's node_modules linked in, the same bundle script run there. Cached per commit.
 */
function buildRef(ref) {
  const sha = git('rev-parse', ref);
  const dir = join(os.tmpdir(), `svc-agents-bench-${sha.slice(0, 12)}`);
  const entry = join(dir, 'dist', 'index.js');
  if (existsSync(entry)) return entry;
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C "${dir}"`], { cwd: repoDir });
  if (!existsSync(join(dir, 'node_modules'))) {
    symlinkSync(realpathSync(join(repoDir, 'node_modules')), join(dir, 'node_modules'));
  }
  execFileSync(process.execPath, ['scripts/bundle.mjs'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return entry;
}

async function startServer() {
  const child = spawnNodePinned(SERVER_CORE, [join(here, 'fake-server.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const line = await new Promise((res) => createInterface({ input: child.stdout }).once('line', res));
  return { child, baseURL: `http://127.0.0.1:${JSON.parse(line).port}` };
}

function startWorker(label, name, entry, baseURL) {
  const env = entry ? { ...process.env, SVC_AGENTS_ENTRY: entry } : process.env;
  const child = spawnNodePinned(CONTESTANT_CORE, [join(here, 'worker.mjs'), name], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env,
  });
  const pending = new Map();
  let id = 0;
  let ready;
  const isReady = new Promise((r) => {
    ready = r;
  });
  child.on('message', (msg) => {
    if (msg.ready) return ready();
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    msg.ok ? p.resolve(msg.result) : p.reject(new Error(`${label}: ${msg.error}`));
  });
  const call = (type, payload = {}) =>
    new Promise((res, rej) => {
      const n = id++;
      pending.set(n, { resolve: res, reject: rej });
      child.send({ id: n, type, ...payload });
    });
  return isReady.then(async () => {
    const info = await call('setup', { baseURL });
    return { label, call, info, child };
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  return s[Math.floor(i)] + (s[Math.ceil(i)] - s[Math.floor(i)]) * (i - Math.floor(i));
};
const spread = (xs, digits = 2) =>
  `${median(xs).toFixed(digits)}x (min-max ${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}, IQR ${quantile(xs, 0.25).toFixed(digits)}-${quantile(xs, 0.75).toFixed(digits)})`;
/** Stores `value` as `table[group][label][index]`. */
function record(table, group, label, index, value) {
  table[group] ??= {};
  table[group][label] ??= [];
  table[group][label][index] = value;
}
const rotate = (list, by) => list.map((_, i) => list[(i + by) % list.length]);

const ALL_CELLS = [
  { key: 'non-streamed c=1', stream: false, concurrency: 1, flag: 'ns-c1' },
  { key: 'streamed c=1', stream: true, concurrency: 1, flag: 's-c1' },
  { key: 'non-streamed c=64', stream: false, concurrency: 64, flag: 'ns-c64' },
  { key: 'streamed c=64', stream: true, concurrency: 64, flag: 's-c64' },
];
// --cells=ns-c1,ns-c64 measures a subset (for checking one change; the results file needs all four).
const cellFlags = option('cells', 'ns-c1,s-c1,ns-c64,s-c64').split(',');
const CELLS = ALL_CELLS.filter((c) => cellFlags.includes(c.flag));

async function measureCpu(workers, out) {
  for (const w of workers)
    for (const c of CELLS) await w.call('cpu', { ...c, runs: c.concurrency === 1 ? 20 : 64 });
  for (let round = 0; round < warmupRounds; round++) {
    log(`cpu warm-up round ${round + 1}/${warmupRounds} (load ${load()})`);
    for (const c of CELLS)
      for (const w of rotate(workers, round)) await w.call('cpu', { ...c, runs: RUNS[c.concurrency] });
  }
  const cpu = {};
  const loads = [];
  for (let round = 0; round < rounds; round++) {
    log(`cpu round ${round + 1}/${rounds} (load ${load()})`);
    loads.push(os.loadavg()[0]);
    for (const c of CELLS) {
      for (const w of rotate(workers, round)) {
        // An idle worker's heap shrinks while the others run; one unrecorded batch first (see main.mjs).
        await w.call('cpu', { ...c, runs: c.concurrency === 1 ? 10 : 64 });
        const r = await w.call('cpu', { ...c, runs: RUNS[c.concurrency] });
        record(cpu, c.key, w.label, round, r.cpuMsPerRun);
      }
    }
  }
  out.cpu = cpu;
  out.cpuLoad1 = loads;
}

async function measureDecode(workers, out) {
  const model = `decode-${DECODE_CHUNKS}`;
  for (let i = 0; i < 3; i++) for (const w of workers) await w.call('decode', { model });
  const rate = {};
  for (let round = 0; round < rounds; round++) {
    log(`decode round ${round + 1}/${rounds} (load ${load()})`);
    for (const w of rotate(workers, round)) {
      const r = await w.call('decode', { model });
      record(rate, 'decode', w.label, round, (DECODE_CHUNKS * 1000) / r.cpuMs);
    }
  }
  out.decode = rate.decode;
}

/** CPU of `await import(...)` in a fresh process pinned to the contestants' core, interleaved. */
function measureImports(entries, out) {
  const probe = (specs) => {
    const argv = [join(here, 'import-probe.mjs'), ...specs];
    const text = execNodePinned(CONTESTANT_CORE, argv, { cwd: here });
    return JSON.parse(text.toString()).cpuMs;
  };
  for (const specs of Object.values(entries)) probe(specs); // the OS file cache first
  const cpu = {};
  const labels = Object.keys(entries);
  for (let i = 0; i < importSamples; i++) {
    for (const label of rotate(labels, i)) record(cpu, 'import', label, i, probe(entries[label]));
  }
  out.imports = cpu.import;
}

async function main() {
  const loadStart = load();
  const uptimeStart = execFileSync('uptime').toString().trim();
  log(`building HEAD (${headSha}${dirty ? ' + uncommitted src' : ''}) and base ${baseRef} (${baseSha}) ...`);
  const headEntry = buildHead();
  const baseEntry = buildRef(baseRef);
  const HEAD = `svc-agents ${headSha}${dirty ? '+' : ''}`;
  const BASE = `svc-agents ${baseSha} (base)`;
  const out = {};
  if (!skip.has('import')) {
    log('cold imports ...');
    measureImports(
      { [HEAD]: ['zod', headEntry], [BASE]: ['zod', baseEntry], 'openai + zod': ['zod', 'openai'] },
      out,
    );
  }
  const server = await startServer();
  const workers = [
    await startWorker(HEAD, 'svc-agents', headEntry, server.baseURL),
    await startWorker(BASE, 'svc-agents', baseEntry, server.baseURL),
    await startWorker('raw-dispatch', 'raw-dispatch', undefined, server.baseURL),
  ];
  try {
    if (!skip.has('cpu')) await measureCpu(workers, out);
    if (!skip.has('decode')) await measureDecode(workers, out);
  } finally {
    for (const w of workers) w.child.kill();
    server.child.kill();
  }
  const uptimeEnd = execFileSync('uptime').toString().trim();
  const lines = [];
  lines.push(
    `Run ${new Date().toISOString()}: node ${process.version}, ${os.availableParallelism()} cores, ${pinningNote()}; ${rounds} interleaved rounds after ${warmupRounds} warm-up rounds; runs per batch ${RUNS[1]} (c=1) / ${RUNS[64]} (c=64).`,
    `Load (1 / 5 / 15 min): ${loadStart} at start, ${load()} at end.`,
    `uptime at start: ${uptimeStart}`,
    `uptime at end:   ${uptimeEnd}`,
    '',
  );
  if (out.cpu) {
    lines.push(
      '### CPU per run against raw-dispatch (median over rounds of the per-round ratio; lower is better)',
      '',
      `| cell | raw-dispatch ms/run | ${BASE} | ${HEAD} | ${HEAD} / base |`,
      '|---|---|---|---|---|',
    );
    for (const c of CELLS) {
      const m = out.cpu[c.key];
      const ratio = (a, b) => m[a].map((x, i) => x / m[b][i]);
      lines.push(
        `| ${c.key} | ${median(m['raw-dispatch']).toFixed(3)} | ${median(m[BASE]).toFixed(3)} ms, ${spread(ratio(BASE, 'raw-dispatch'))} | ${median(m[HEAD]).toFixed(3)} ms, ${spread(ratio(HEAD, 'raw-dispatch'))} | ${spread(ratio(HEAD, BASE), 3)} |`,
      );
    }
    lines.push(
      '',
      `1-min load average at the start of each round: ${out.cpuLoad1.map((x) => x.toFixed(2)).join(', ')}`,
      '',
    );
  }
  if (out.decode) {
    const d = out.decode;
    const ratio = (a) => d[a].map((x, i) => x / d['raw-dispatch'][i]);
    lines.push(
      '### Stream decode against raw-dispatch (chunks per CPU-second, ratio; higher is better)',
      '',
      '| contestant | chunks/CPU-s | ratio to raw-dispatch |',
      '|---|---|---|',
      `| raw-dispatch | ${Math.round(median(d['raw-dispatch']))} | 1 |`,
      `| ${BASE} | ${Math.round(median(d[BASE]))} | ${spread(ratio(BASE))} |`,
      `| ${HEAD} | ${Math.round(median(d[HEAD]))} | ${spread(ratio(HEAD))} |`,
      '',
    );
  }
  if (out.imports) {
    const im = out.imports;
    const ratio = (a) => im[a].map((x, i) => x / im['openai + zod'][i]);
    lines.push(
      `### Cold import: CPU of \`await import\` in a fresh pinned process, median of ${importSamples} (lower is better)`,
      '',
      '| import | CPU ms (min-max) | ratio to openai + zod |',
      '|---|---|---|',
      ...Object.keys(im).map(
        (k) =>
          `| ${k === 'openai + zod' ? 'openai + zod' : `main entry of ${k} + zod`} | ${median(im[k]).toFixed(1)} (${Math.min(...im[k]).toFixed(0)}-${Math.max(...im[k]).toFixed(0)}) | ${k === 'openai + zod' ? '1' : spread(ratio(k))} |`,
      ),
      '',
    );
  }
  const text = lines.join('\n');
  process.stdout.write(`${text}\n`);
  const file = option('out');
  if (file) {
    writeFileSync(resolve(file), `${text}\n`);
    log(`wrote ${file}`);
  }
}

main().catch((error) => {
  log(error?.stack ?? String(error));
  process.exit(1);
});
