import { defineConfig } from 'vitest/config';

/**
 * `npm run test:integration`: the suites that need Redis and PostgreSQL on 127.0.0.1, Chromium, terminals
 * and child processes, and the chaos, soak and property suites (`*.integration.test.ts`).
 */
export default defineConfig({
  test: {
    include: ['test/**/*.integration.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores: keep the worker count small so servers and processes started by tests are not starved.
    maxWorkers: 2,
  },
});
