// Child of profile.mjs, started with --cpu-prof: warm up one contestant, then run it under the profiler.
// Usage: node --cpu-prof profile-run.mjs <contestant> <baseURL> <stream 0|1> <concurrency> <runs>
const [name, baseURL, streamFlag, concurrencyText, runsText] = process.argv.slice(2);
const stream = streamFlag === '1';
const concurrency = Number(concurrencyText);
const runs = Number(runsText);
const { setup } = await import(`./contestants/${name}.mjs`);
const impl = await setup({ baseURL, onToolCall: () => {} });
const batch = async (n) => {
  for (let done = 0; done < n; done += concurrency) {
    await Promise.all(Array.from({ length: Math.min(concurrency, n - done) }, () => impl.run(stream)));
  }
};
await batch(Math.min(runs, 64));
await batch(runs);
await impl.close?.();
process.exit(0);
