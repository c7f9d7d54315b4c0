// Turns the raw per-round samples into the markdown report (tables + budget verdicts).
import {
  LATENCY_ARGS_DONE_MS,
  LATENCY_EAGER_IDEAL_MS,
  LATENCY_STREAM_END_MS,
  LATENCY_TOOL_MS,
} from './workload.mjs';

/** Median of the defined numbers in `values`. */
export function median(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** Median over rounds of value(name) / value(base) in the same round (pairs adjacent measurements). */
export function ratio(samples, name, base) {
  const a = samples?.[name];
  const b = samples?.[base];
  if (!a || !b) return undefined;
  return median(a.map((x, i) => (b[i] ? x / b[i] : undefined)));
}

const fmt = (x, digits = 2) => (x === undefined ? 'n/a' : x >= 100 ? x.toFixed(0) : x.toFixed(digits));
const times = (x) => (x === undefined ? '' : ` (${x.toFixed(2)}x)`);

const LABELS = {
  raw: 'raw (undici + hand loop)',
  'raw-dispatch': 'raw-dispatch (undici Pool.dispatch + hand loop)',
  'svc-agents': '**svc-agents** Agent',
  'openai-loop': 'openai 6 (create + hand loop)',
  'openai-runtools': 'openai 6 runTools',
  'ai-sdk': 'ai 6 + openai-compatible',
  'openai-agents': '@openai/agents 0.14 (chat completions)',
  undici: "bare `import 'undici'`",
  zod: "`import 'zod'` (for reference)",
  openai: 'openai',
  'svc-agents + zod': '**svc-agents** main entry + zod',
  'openai + zod': 'openai + zod',
};
const label = (n) => LABELS[n] ?? n;

function table(header, rows) {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

export function renderReport({ date, quick, plan, seconds, results, contestants, notes, env }) {
  const out = [];
  const scen = [
    ['ns-c1', 'non-streamed, c=1'],
    ['s-c1', 'streamed, c=1'],
    ['ns-c64', 'non-streamed, c=64'],
    ['s-c64', 'streamed, c=64'],
  ];
  // Beside the ratio to `raw`, the ratio to `raw-dispatch` (the floor) when it ran: `(0.93x, 1.40x d)`.
  const cell = (measure, key, name, base = 'raw', digits = 2) => {
    const samples = results[`${measure}|${key}`];
    const value = fmt(median(samples?.[name] ?? []), digits);
    const r = ratio(samples, name, base);
    const d = base === 'raw' ? ratio(samples, name, 'raw-dispatch') : undefined;
    if (r === undefined || d === undefined) return `${value}${times(r)}`;
    return `${value} (${r.toFixed(2)}x, ${d.toFixed(2)}x d)`;
  };

  out.push(`# svc-agents benchmark, ${date}${quick ? ' (quick)' : ''}`);
  out.push('');
  out.push(
    `Node ${env.node}, ${env.cpu}, ${env.cores} cores, ${env.platform}${env.pinning ? `, ${env.pinning}` : ''}. ${plan.warmupRounds} unrecorded ` +
      `warm-up rounds of the same plan, then ${plan.rounds} interleaved rounds; ` +
      `${plan.runsC1} runs per measurement at c=1, ${plan.runsC64} at c=64; whole run ${seconds} s. ` +
      `Load average (1/5/15 min): ${env.load}; anything above the core count means other processes shared the CPU.`,
  );
  out.push('');
  out.push(
    `Versions: ${Object.entries(env.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
  );
  out.push('');
  out.push(
    'Workload: 3 tool turns (one zod-typed `get_weather` call each, reasoning streamed first, arguments in',
  );
  out.push(
    'fragments with `index`) then a 200-token answer, against the local fake server. Values are medians over',
  );
  out.push(
    'rounds; `(N.NNx)` is the median over rounds of the ratio to the raw baseline measured in the same round,',
  );
  out.push(
    'and `N.NNx d` the same ratio to raw-dispatch (the floor: undici `Pool.dispatch()`), when it ran.',
  );

  if (results['cpu|ns-c1']) {
    out.push('', '## CPU time per complete agent run (ms, lower is better)', '');
    out.push(
      table(
        ['contestant', ...scen.map(([, l]) => l)],
        contestants.map((n) => [label(n), ...scen.map(([k]) => cell('cpu', k, n))]),
      ),
    );
    out.push('', '## Wall time per run (median latency, ms)', '');
    out.push(
      table(
        ['contestant', ...scen.map(([, l]) => l)],
        contestants.map((n) => [label(n), ...scen.map(([k]) => cell('wall', k, n))]),
      ),
    );
    out.push('', '## Throughput at c=64 (runs/s, higher is better; the fake server shares the 2 cores)', '');
    out.push(
      table(
        ['contestant', 'non-streamed', 'streamed'],
        contestants.map((n) => [
          label(n),
          cell('throughput', 'ns-c64', n, 'raw', 0),
          cell('throughput', 's-c64', n, 'raw', 0),
        ]),
      ),
    );
  }
  if (results['connections|ns-c1']) {
    out.push(
      '',
      '## New TCP connections per run (diagnostic: 0 means keep-alive reuse; a run makes 4 requests)',
      '',
    );
    out.push(
      table(
        ['contestant', ...scen.map(([, l]) => l)],
        contestants.map((n) => [
          label(n),
          ...scen.map(([k]) => fmt(median(results[`connections|${k}`]?.[n] ?? []))),
        ]),
      ),
    );
  }
  const decodeCpu = results['decode-cpu|all'];
  if (decodeCpu) {
    out.push('', `## Stream decode throughput (${'20,000'}-chunk stream, chunks/s, higher is better)`, '');
    out.push(
      'Per CPU-second of the client process, and per wall-second. raw = hand-split SSE lines + JSON.parse;',
    );
    out.push('svc-agents = `client.chat.completions.create({ stream: true })` (its ChatCompletionStream);');
    out.push('openai = its `Stream`; ai-sdk = `streamText().fullStream`.');
    out.push('');
    const names = contestants.filter((n) => decodeCpu[n]);
    out.push(
      table(
        ['contestant', 'chunks per CPU-s', 'chunks per wall-s'],
        names.map((n) => [
          label(n),
          cell('decode-cpu', 'all', n, 'raw', 0),
          cell('decode-wall', 'all', n, 'raw', 0),
        ]),
      ),
    );
  }
  if (results['rss|s-c64'] || results['rss|ns-c64']) {
    out.push('', '## Peak RSS at concurrency 64 (MiB, a fresh process each time, lower is better)', '');
    out.push(
      `Growth = peak RSS while ${plan.rssRuns} runs go 64 at a time, minus the idle RSS after one warm-up run and a GC.`,
    );
    out.push('');
    out.push(
      table(
        [
          'contestant',
          'growth, non-streamed',
          'growth, streamed',
          'peak RSS, non-streamed',
          'peak RSS, streamed',
        ],
        contestants.map((n) => [
          label(n),
          cell('rss', 'ns-c64', n, 'raw', 1),
          cell('rss', 's-c64', n, 'raw', 1),
          cell('rss-peak', 'ns-c64', n, 'raw', 1),
          cell('rss-peak', 's-c64', n, 'raw', 1),
        ]),
      ),
    );
  }
  const imports = results['import|cold'];
  if (imports) {
    out.push('', '## Cold import in a fresh process (ms, lower is better; ratio to bare undici)', '');
    out.push(
      table(
        ['package', 'import ms'],
        Object.keys(imports).map((n) => [
          n === 'svc-agents' ? '**svc-agents** (main entry)' : label(n),
          cell('import', 'cold', n, 'undici', 1),
        ]),
      ),
    );
  }
  const importCpu = results['import-cpu|cold'];
  if (importCpu?.['openai + zod']) {
    out.push('', '## Cold import CPU (ms of process CPU, lower is better; ratio to openai + zod)', '');
    out.push(
      table(
        ['import', 'CPU ms'],
        Object.keys(importCpu).map((n) => [
          n === 'svc-agents' ? '**svc-agents** (main entry)' : label(n),
          cell('import-cpu', 'cold', n, 'openai + zod', 1),
        ]),
      ),
    );
  }

  const verdict = (value, ok) => (value === undefined ? 'not measured' : ok(value) ? 'pass' : '**MISS**');
  const latencyWall = results['latency-wall|all'];
  if (latencyWall) {
    out.push('', '## Slow-stream multi-tool latency (wall ms per run, tool start delay ms per call)', '');
    out.push(
      `One streamed turn with 3 \`get_weather\` calls whose arguments complete at ${LATENCY_ARGS_DONE_MS.join(
        '/',
      )} ms, the stream ending at ${LATENCY_STREAM_END_MS} ms; each tool takes ${LATENCY_TOOL_MS} ms, then an instant answer.`,
    );
    out.push(
      `Eager ideal (each tool starts when its arguments are complete): ${LATENCY_EAGER_IDEAL_MS} ms. Start delay = tool start`,
    );
    out.push('minus the moment the server wrote its last fragment, mean of the runs, median over rounds.');
    out.push('');
    const keys = Object.keys(latencyWall);
    const delay = (key, call) => median(results[`latency-delay|${call}`]?.[key] ?? []);
    out.push(
      table(
        [
          'contestant (mode)',
          'wall ms',
          'x eager ideal',
          ...LATENCY_ARGS_DONE_MS.map((_, i) => `delay call ${i + 1}`),
          'mean delay',
        ],
        keys.map((key) => {
          const [name, mode] = key.split('|');
          const wall = median(latencyWall[key]);
          const delays = LATENCY_ARGS_DONE_MS.map((_, i) => delay(key, i));
          const mean = delays.reduce((a, b) => a + b, 0) / delays.length;
          return [
            `${label(name)} (${mode})`,
            fmt(wall, 0),
            (wall / LATENCY_EAGER_IDEAL_MS).toFixed(3),
            ...delays.map((d) => fmt(d, 1)),
            fmt(mean, 1),
          ];
        }),
      ),
    );
  }

  if (contestants.includes('raw-dispatch')) {
    out.push('', '## Budget (issue 18), svc-agents against raw-dispatch in the same run', '');
    const rows18 = [];
    for (const [k, l] of scen) {
      const r = ratio(results[`cpu|${k}`], 'svc-agents', 'raw-dispatch');
      rows18.push([
        `CPU per run, ${l}`,
        '<= 1.20x',
        r === undefined ? 'n/a' : `${r.toFixed(2)}x`,
        verdict(r, (x) => x <= 1.2),
      ]);
    }
    const dd = ratio(decodeCpu, 'svc-agents', 'raw-dispatch');
    rows18.push([
      'Stream decode (chunks per CPU-s)',
      '>= 1.00x',
      dd === undefined ? 'n/a' : `${dd.toFixed(2)}x`,
      verdict(dd, (x) => x >= 1),
    ]);
    const eagerKey = 'svc-agents|eager';
    if (latencyWall?.[eagerKey]) {
      const delays = LATENCY_ARGS_DONE_MS.map((_, i) =>
        median(results[`latency-delay|${i}`]?.[eagerKey] ?? []),
      );
      const mean = delays.reduce((a, b) => a + b, 0) / delays.length;
      rows18.push([
        'Latency: mean tool start delay, idempotent',
        '<= 10 ms',
        `${mean.toFixed(1)} ms`,
        verdict(mean, (x) => x <= 10),
      ]);
      const w = median(latencyWall[eagerKey]) / LATENCY_EAGER_IDEAL_MS;
      rows18.push([
        'Latency: wall per run vs eager ideal',
        '<= 1.02x',
        `${w.toFixed(3)}x`,
        verdict(w, (x) => x <= 1.02),
      ]);
    }
    out.push(table(['measure', 'target', 'svc-agents', 'verdict'], rows18));
  }

  out.push('', '## Budget (issue 7), svc-agents against the raw baseline in the same run', '');
  const rows = [];
  for (const [k, l] of scen) {
    const r = ratio(results[`cpu|${k}`], 'svc-agents', 'raw');
    rows.push([
      `CPU per run, ${l}`,
      '<= 1.20x',
      r === undefined ? 'n/a' : `${r.toFixed(2)}x`,
      verdict(r, (x) => x <= 1.2),
    ]);
  }
  const d = ratio(decodeCpu, 'svc-agents', 'raw');
  rows.push([
    'Stream decode (chunks per CPU-s)',
    '>= 1.00x',
    d === undefined ? 'n/a' : `${d.toFixed(2)}x`,
    verdict(d, (x) => x >= 1),
  ]);
  const imCpu = ratio(importCpu, 'svc-agents + zod', 'openai + zod');
  rows.push([
    'Cold import CPU, main entry + zod vs openai + zod',
    '<= 1.00x',
    imCpu === undefined ? 'n/a' : `${imCpu.toFixed(2)}x`,
    verdict(imCpu, (x) => x <= 1),
  ]);
  const im = ratio(imports, 'svc-agents', 'undici');
  rows.push([
    "Cold import vs bare `import 'undici'`",
    '<= 1.30x',
    im === undefined ? 'n/a' : `${im.toFixed(2)}x`,
    verdict(im, (x) => x <= 1.3),
  ]);
  for (const [k, l] of [
    ['ns-c64', 'non-streamed'],
    ['s-c64', 'streamed'],
  ]) {
    const r = ratio(results[`rss|${k}`], 'svc-agents', 'raw');
    rows.push([
      `Peak RSS growth at c=64, ${l}`,
      '<= 1.20x',
      r === undefined ? 'n/a' : `${r.toFixed(2)}x`,
      verdict(r, (x) => x <= 1.2),
    ]);
  }
  out.push(table(['measure', 'target', 'svc-agents', 'verdict'], rows));
  if (notes.length) out.push('', '## Notes', '', ...notes.map((n) => `- ${n}`));
  return out.join('\n');
}
