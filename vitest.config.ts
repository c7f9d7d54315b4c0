import { defineConfig } from 'vitest/config';

/**
 * `npm test`: the unit tests, each against the emulator or a small server it starts on 127.0.0.1. The suites
 * that need Redis, PostgreSQL, Chromium, child processes, or run chaos, soak and property loads are named
 * `*.integration.test.ts` and run by `npm run test:integration` (vitest.integration.config.ts).
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.integration.test.ts', '**/node_modules/**'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores: keep the worker count small so servers started by tests are not starved.
    maxWorkers: 2,
  },
});
