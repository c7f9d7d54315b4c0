// Cold import probe, run in a fresh process per measurement: node import-probe.mjs <specifier>...
// Prints the milliseconds that `await import(...)` of the given specifiers took (after Node's own
// start-up, which is the same for every package).
const specifiers = process.argv.slice(2);
const t0 = performance.now();
for (const specifier of specifiers) await import(specifier);
const ms = performance.now() - t0;
process.stdout.write(`${JSON.stringify({ ms })}\n`);
