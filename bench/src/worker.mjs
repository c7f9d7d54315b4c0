// One contestant in its own process (module cache, heap and RSS never mix with another's).
// Usage: node --expose-gc worker.mjs <contestant>; driven by main.mjs over the IPC channel.
// Every measured run is checked: the final text must be the scripted answer and the tool must have run
// once per tool turn, so a contestant cannot win by skipping work.
import { setTimeout as sleep } from 'node:timers/promises';
import { DECODE_CHUNKS, FINAL_TEXT, LATENCY_ARGS_DONE_MS, LATENCY_TEXT, TOOL_TURNS } from './workload.mjs';

const name = process.argv[2];
const contestant = await import(`./contestants/${name}.mjs`);
let toolCalls = 0;
let impl;
let serverURL;

function collect() {
  globalThis.gc?.();
  globalThis.gc?.();
}

function check(text) {
  if (text !== FINAL_TEXT) {
    throw new Error(`${name}: wrong final text (${typeof text}) ${JSON.stringify(text)?.slice(0, 120)}`);
  }
}

/** Runs `runs` agent runs, `concurrency` at a time, and returns CPU per run and wall per run. */
async function batch({ stream, concurrency, runs }) {
  const before = toolCalls;
  const walls = [];
  const one = async () => {
    const start = performance.now();
    check(await impl.run(stream));
    walls.push(performance.now() - start);
  };
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let done = 0; done < runs; done += concurrency) {
    await Promise.all(Array.from({ length: Math.min(concurrency, runs - done) }, one));
  }
  const cpu = process.cpuUsage(c0);
  const wallTotal = performance.now() - t0;
  if (toolCalls - before !== runs * TOOL_TURNS) {
    throw new Error(
      `${name}: tool ran ${toolCalls - before} times for ${runs} runs, expected ${runs * TOOL_TURNS}`,
    );
  }
  walls.sort((a, b) => a - b);
  return {
    cpuMsPerRun: (cpu.user + cpu.system) / 1000 / runs,
    wallMsMedian: walls[walls.length >> 1],
    runsPerSec: (runs * 1000) / wallTotal,
  };
}

const handlers = {
  async setup({ baseURL }) {
    serverURL = baseURL;
    impl = await contestant.setup({ baseURL, onToolCall: () => toolCalls++ });
    return { decode: typeof impl.decode === 'function', latencyModes: impl.latencyModes ?? [] };
  },
  // No forced GC before CPU and decode measurements: the sweeping that follows a full GC runs on helper
  // threads and the shrunk heap grows back, both charged to the next batch (raw non-streamed c=64 measured
  // ~1.0 ms per run with two gc() calls before each batch, ~0.35 ms without). A contestant's own garbage
  // is part of what its runs cost; each contestant has its own process, so it never lands on another.
  async cpu(msg) {
    return batch(msg);
  },
  async decode({ model }) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const n = await impl.decode(model);
    const cpu = process.cpuUsage(c0);
    const wallMs = performance.now() - t0;
    if (n !== DECODE_CHUNKS) throw new Error(`${name}: decoded ${n} chunks, expected ${DECODE_CHUNKS}`);
    return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs };
  },
  /**
   * The latency workload, one run at a time: wall time per run and each tool's start delay, i.e. its start
   * minus the moment the fake server wrote that call's last argument fragment (both epoch clocks of this
   * machine), so the server's timer lateness and the request's trip do not count.
   */
  async latency({ mode, runs }) {
    const walls = [];
    const delays = LATENCY_ARGS_DONE_MS.map(() => []);
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const { text, starts } = await impl.latency(mode);
      walls.push(performance.now() - t0);
      if (text !== LATENCY_TEXT)
        throw new Error(`${name} ${mode}: wrong latency answer ${JSON.stringify(text)}`);
      const sends = await (await fetch(`${serverURL}/latency-sends`)).json();
      LATENCY_ARGS_DONE_MS.forEach((doneAt, call) => {
        const sent = sends.findLast((s) => s.at === doneAt)?.sentAt;
        if (starts[call] === undefined || sent === undefined)
          throw new Error(`${name} ${mode}: call ${call} never ran`);
        delays[call].push(performance.timeOrigin + starts[call] - sent);
      });
    }
    const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
    return { wallMs: mean(walls), delaysMs: delays.map(mean) };
  },
  /** Peak RSS growth over the idle RSS while `runs` runs go `concurrency` at a time (sustained load). */
  async rss({ stream, concurrency, runs }) {
    collect();
    await sleep(20);
    collect();
    const rssBefore = process.memoryUsage.rss();
    const maxBefore = process.resourceUsage().maxRSS * 1024;
    let sampled = rssBefore;
    const timer = setInterval(() => {
      const rss = process.memoryUsage.rss();
      if (rss > sampled) sampled = rss;
    }, 2);
    await batch({ stream, concurrency, runs });
    clearInterval(timer);
    const maxAfter = process.resourceUsage().maxRSS * 1024;
    // maxRSS is the lifetime peak: if it rose, the new peak happened during the batch.
    const peak = maxAfter > maxBefore ? Math.max(maxAfter, sampled) : sampled;
    return { growthBytes: peak - rssBefore, rssBefore };
  },
  async exit() {
    await impl?.close?.();
    setImmediate(() => process.exit(0));
    return {};
  },
};

process.on('message', async (msg) => {
  try {
    const result = await handlers[msg.type](msg);
    process.send({ id: msg.id, ok: true, result });
  } catch (error) {
    process.send({ id: msg.id, ok: false, error: String(error?.stack ?? error) });
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
