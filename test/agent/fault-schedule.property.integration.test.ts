import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultScheduleServer, faultCaseArb } from '../helpers/fault-schedule-server.js';

// 500 cases in CI; `FAULT_CASES` overrides, `FAULT_SEED` replays one seed (see scripts/fault-schedule.ts for 100,000).
const numRuns = Number(process.env.FAULT_CASES ?? 500);
const seed = process.env.FAULT_SEED === undefined ? undefined : Number(process.env.FAULT_SEED);

const server = new FaultScheduleServer();
beforeAll(() => server.start());
afterAll(() => server.close());

describe('random fault schedules over random multi-turn scripts', () => {
  it(`should hold every invariant in ${numRuns} cases`, { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(faultCaseArb, async (fcase) => {
        expect(await server.run(fcase)).toBeUndefined();
      }),
      { numRuns, ...(seed === undefined ? {} : { seed }) },
    );
  });
});
