// Cold import probe, run in a fresh process per measurement: node import-probe.mjs <specifier>...
// Prints the milliseconds that `await import(...)` of the given specifiers took (after Node's own
// start-up, which is the same for every package): `ms` wall time and `cpuMs` the process's CPU time
// (user + system, all threads) over the same span. CPU is the figure that compares: wall time on a loaded
// 2-core machine mostly measures the other processes.
const specifiers = process.argv.slice(2);
const c0 = process.cpuUsage();
const t0 = performance.now();
for (const specifier of specifiers) await import(specifier);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(c0);
process.stdout.write(`${JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
