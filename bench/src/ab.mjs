// node bench/src/ab.mjs <entryA> <entryB> [--stream] [--concurrency=64] [--rounds=7] [--runs=128]
// A/B of two svc-agents builds (paths to their index.js) with raw-dispatch beside them, on one scenario:
// one worker process each, warm-up, then interleaved rounds (A B D, B D A, ...). Prints CPU per run,
// median over rounds, and the median per-round ratios B/A and each/raw-dispatch. For checking that a
// fast path pays before it lands (STYLE: fast paths land with a bench result).
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CONTESTANT_CORE, SERVER_CORE, spawnNodePinned } from './pin.mjs';
import { median } from './report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const [entryA, entryB] = args.filter((a) => !a.startsWith('--'));
const option = (k, d) => args.find((a) => a.startsWith(`--${k}=`))?.split('=')[1] ?? d;
const stream = args.includes('--stream');
const concurrency = Number(option('concurrency', '64'));
const rounds = Number(option('rounds', '7'));
const runs = Number(option('runs', concurrency === 1 ? '30' : '128'));

const server = spawnNodePinned(SERVER_CORE, [join(here, 'fake-server.mjs')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const { port } = JSON.parse(
  await new Promise((r) => createInterface({ input: server.stdout }).once('line', r)),
);
const baseURL = `http://127.0.0.1:${port}`;

function startWorker(label, name, entry) {
  const env = entry ? { ...process.env, SVC_AGENTS_ENTRY: resolve(entry) } : process.env;
  const child = spawnNodePinned(CONTESTANT_CORE, [join(here, 'worker.mjs'), name], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env,
  });
  const pending = new Map();
  let id = 0;
  child.on('message', (msg) => {
    if (msg.ready) return pending.get('ready')?.();
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    msg.ok ? p.resolve(msg.result) : p.reject(new Error(msg.error));
  });
  const call = (type, payload = {}) =>
    new Promise((res, rej) => {
      const n = id++;
      pending.set(n, { resolve: res, reject: rej });
      child.send({ id: n, type, ...payload });
    });
  return new Promise((ready) => pending.set('ready', () => ready({ label, call, child })));
}

const workers = [
  await startWorker('A', 'svc-agents', entryA),
  await startWorker('B', 'svc-agents', entryB),
  await startWorker('raw-dispatch', 'raw-dispatch'),
];
for (const w of workers) await w.call('setup', { baseURL });
const scenario = { stream, concurrency };
for (let i = 0; i < 3; i++) for (const w of workers) await w.call('cpu', { ...scenario, runs });
const cpu = Object.fromEntries(workers.map((w) => [w.label, []]));
for (let round = 0; round < rounds; round++) {
  const order = workers.map((_, i) => workers[(i + round) % workers.length]);
  for (const w of order) {
    await w.call('cpu', { ...scenario, runs: Math.min(runs, 64) });
    cpu[w.label][round] = (await w.call('cpu', { ...scenario, runs })).cpuMsPerRun;
  }
}
const ratio = (a, b) => median(cpu[a].map((x, i) => x / cpu[b][i]));
const out = [`${stream ? 'streamed' : 'non-streamed'} c=${concurrency}, ${rounds} rounds of ${runs} runs`];
for (const w of workers) {
  out.push(
    `  ${w.label}: ${median(cpu[w.label]).toFixed(3)} ms CPU/run, ${ratio(w.label, 'raw-dispatch').toFixed(2)}x raw-dispatch`,
  );
}
out.push(
  `  B/A: ${ratio('B', 'A').toFixed(3)} (per-round ratios: ${cpu.B.map((x, i) => (x / cpu.A[i]).toFixed(2)).join(' ')})`,
);
process.stdout.write(`${out.join('\n')}\n`);
for (const w of workers) w.child.kill();
server.kill();
