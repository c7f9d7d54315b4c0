// Child of profile.mjs: warm one contestant up, then profile only the measured runs (node:inspector),
// so module loading and JIT warm-up do not drown the steady-state hot spots.
// Usage: node profile-run.mjs <contestant> <baseURL> <stream 0|1|decode> <concurrency> <runs> <out.cpuprofile>
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { DECODE_CHUNKS } from './workload.mjs';

const [name, baseURL, streamFlag, concurrencyText, runsText, out] = process.argv.slice(2);
const stream = streamFlag === '1';
const concurrency = Number(concurrencyText);
const runs = Number(runsText);
const { setup } = await import(`./contestants/${name}.mjs`);
const impl = await setup({ baseURL, onToolCall: () => {} });
const decode = streamFlag === 'decode';
const batch = async (n) => {
  if (decode) {
    for (let i = 0; i < n; i++) await impl.decode(`decode-${DECODE_CHUNKS}`);
    return;
  }
  for (let done = 0; done < n; done += concurrency) {
    await Promise.all(Array.from({ length: Math.min(concurrency, n - done) }, () => impl.run(stream)));
  }
};
await batch(decode ? 5 : Math.max(64, concurrency));
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
await session.post('Profiler.start');
const c0 = process.cpuUsage();
await batch(runs);
const cpu = process.cpuUsage(c0);
const { profile } = await session.post('Profiler.stop');
writeFileSync(out, JSON.stringify(profile));
process.stdout.write(`${JSON.stringify({ cpuMsPerRun: (cpu.user + cpu.system) / 1000 / runs })}\n`);
await impl.close?.();
process.exit(0);
