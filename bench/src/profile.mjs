// node bench/src/profile.mjs <contestant> [--stream | --decode] [--concurrency=N] [--runs=N]
// (--decode profiles `runs` decodes of the 20,000-chunk stream instead of agent runs.)
// Runs one contestant under the V8 CPU profiler (node:inspector, after a warm-up) against the fake server and prints the top functions by
// self time (file:line), plus self time per file, so a hot spot can be named precisely.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const name = args.find((a) => !a.startsWith('--')) ?? 'svc-agents';
const option = (k, d) => args.find((a) => a.startsWith(`--${k}=`))?.split('=')[1] ?? d;
const decode = args.includes('--decode');
const stream = args.includes('--stream');
const concurrency = Number(option('concurrency', '1'));
const runs = Number(option('runs', decode ? '20' : concurrency === 1 ? '400' : '640'));
const top = Number(option('top', '30'));
const outDir = join(here, '..', 'profiles');
mkdirSync(outDir, { recursive: true });

const server = spawn(process.execPath, [join(here, 'fake-server.mjs')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const { port } = JSON.parse(
  await new Promise((r) => createInterface({ input: server.stdout }).once('line', r)),
);
const mode = decode ? 'decode' : stream ? 'stream' : 'nostream';
const file = join(outDir, `${name}-${mode}-c${concurrency}.cpuprofile`);
const child = spawnSync(
  process.execPath,
  [
    join(here, 'profile-run.mjs'),
    name,
    `http://127.0.0.1:${port}`,
    decode ? 'decode' : stream ? '1' : '0',
    String(concurrency),
    String(runs),
    file,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
server.kill();
if (child.status !== 0) process.exit(child.status ?? 1);
const { cpuMsPerRun } = JSON.parse(child.stdout.toString());
const profile = JSON.parse(readFileSync(file, 'utf8'));

// Self time per node = samples hitting it x sampling interval.
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const hits = new Map();
for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
// Percentages are of busy time: idle samples (waiting on the server) are left out.
const idleIds = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
for (const id of idleIds) hits.delete(id);
const total = [...hits.values()].reduce((a, b) => a + b, 0);
const repo = join(here, '..', '..');
const where = (cf) => {
  const path = cf.url.startsWith('file://') ? relative(repo, fileURLToPath(cf.url)) : cf.url || '(native)';
  return `${path}:${cf.lineNumber + 1}`;
};
const fnKey = new Map();
const fileKey = new Map();
for (const [id, n] of hits) {
  const cf = byId.get(id).callFrame;
  const k = `${cf.functionName || '(anonymous)'}  ${where(cf)}`;
  fnKey.set(k, (fnKey.get(k) ?? 0) + n);
  const f = cf.url ? where(cf).replace(/:\d+$/, '') : `(${cf.functionName || 'program'})`;
  fileKey.set(f, (fileKey.get(f) ?? 0) + n);
}
const pct = (n) => `${((100 * n) / total).toFixed(1).padStart(5)}%`;
console.log(
  `\n${name} ${mode} c=${concurrency}, ${runs} runs, ${cpuMsPerRun.toFixed(2)} ms CPU per run; profile: ${relative(process.cwd(), file)}\n`,
);
console.log(`Top functions by self time (% of ${total} busy samples):`);
for (const [k, n] of [...fnKey].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(n)}  ${k}`);
console.log('\nSelf time by file:');
for (const [k, n] of [...fileKey].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(n)}  ${k}`);

// Inclusive (total) time of functions in the library (dist/ or src/) and the contestant, to see which
// step of the loop the self time above belongs to.
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map();
for (const [id, n] of hits) {
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const cf = byId.get(cur).callFrame;
    if (!/\/(dist|src)\//.test(cf.url) || cf.url.includes('node_modules')) continue;
    const k = `${cf.functionName || '(anonymous)'}  ${where(cf)}`;
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + n);
  }
}
console.log('\nInclusive time of library and contestant functions:');
for (const [k, n] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(n)}  ${k}`);
