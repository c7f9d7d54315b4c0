import type { Clock } from '../../src/core/clock.js';

/** A `Clock` a test moves by hand: `now()` stands still until `advance(ms)`, and `sleep(ms)` advances at once. */
export interface TestClock extends Clock {
  /** Moves the time on by `ms`. */
  advance(ms: number): void;
}

/** A `TestClock` starting at `start` epoch milliseconds (near the real time by default, so stamps look real). */
export function createTestClock(start = Date.now()): TestClock {
  let time = start;
  return {
    now: () => time,
    async sleep(ms) {
      time += ms;
    },
    advance(ms) {
      time += ms;
    },
  };
}
