// Runs N random fault-schedule cases (default 100,000) against the agent, in batches with fresh seeds,
// and prints the seed and counterexample of any failure. Loopback only.
//   npx tsx scripts/fault-schedule.ts [cases] [seed]
// Replay a failure in the test: FAULT_SEED=<seed> FAULT_CASES=<n> npx vitest run test/agent/fault-schedule.property.integration.test.ts
import fc from 'fast-check';
import { FaultScheduleServer, faultCaseArb } from '../test/agent/helpers/fault-schedule.js';

const total = Number(process.argv[2] ?? 100_000);
const firstSeed = process.argv[3] === undefined ? Date.now() % 2 ** 31 : Number(process.argv[3]);
const batch = 1000;

const server = new FaultScheduleServer();
await server.start();
const started = performance.now();
let done = 0;
let failed = false;
try {
  for (let seed = firstSeed; done < total; seed++) {
    const numRuns = Math.min(batch, total - done);
    const details = await fc.check(
      fc.asyncProperty(faultCaseArb, async (fcase) => {
        const problem = await server.run(fcase);
        if (problem !== undefined) throw new Error(problem);
      }),
      { numRuns, seed },
    );
    if (details.failed) {
      failed = true;
      const fcase = details.counterexample?.[0];
      console.error(`FAILED: seed ${seed} (batch of ${numRuns}), path ${details.counterexamplePath}`);
      console.error(`counterexample: ${JSON.stringify(fcase)}`);
      console.error(`broken invariant: ${String(details.errorInstance)}`);
      if (fcase) console.error(`on replay: ${(await server.run(fcase)) ?? 'holds (timing-dependent)'}`);
      break;
    }
    done += numRuns;
    const seconds = (performance.now() - started) / 1000;
    console.log(`${done} cases ok (last seed ${seed}), ${seconds.toFixed(0)} s`);
  }
} finally {
  await server.close();
}
process.exitCode = failed ? 1 : 0;
