import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import type { LimitStatsRow } from '../../src/queue/limits-backend.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { REDIS_URL } from '../helpers/infra-services.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { runCli } from '../helpers/run-cli-process.js';

/** One window for the whole test (budgets sized to it): its counters cannot turn over before the check. */
const WINDOW_MS = 1e12;

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`limits stats and fallback in workers on ${backend.name}`, () => {
    let emu: Emulator;
    let ns: QueueNamespace;
    let queue: RunQueue;
    let worker: RunWorker;
    let client: SvcClient;
    beforeAll(async () => {
      // The agent's own model is down: every turn moves to its fallback model.
      emu = await startEmulator({ faults: [{ model: 'svc-3.5-flash-2603', status: 503 }] });
      client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      ns = backend.create();
      queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
      worker = await startWorker({
        connection: ns.connection,
        store: ns.store,
        agents: { short: new Agent({ client, model: ['svc-3.5-flash-2603', 'svc-3.7-flash'] }) },
        name: ns.queueName,
        handleSignals: false,
        limits: {
          models: { '*': { requests: WINDOW_MS, tokens: WINDOW_MS * 1_000 } },
          account: { requests: WINDOW_MS },
          windowMs: WINDOW_MS,
        },
      });
    });
    afterAll(async () => {
      await worker?.close(true);
      await queue?.close();
      await ns?.cleanup();
      await client?.close();
      await emu?.close();
    });

    it('should count requests, tokens and fallbacks per model and tenant, and show them in runs stats', async () => {
      const runIds = await Promise.all([
        queue.enqueue('short', 'Say hello', { tenant: 'acme' }),
        queue.enqueue('short', 'Say hello again', { tenant: 'acme' }),
        queue.enqueue('short', 'Say goodbye'),
      ]);
      const records = await Promise.all(runIds.map((id) => queue.waitUntilFinished(id)));
      expect(records.map((record) => record.status)).toEqual(['completed', 'completed', 'completed']);
      const [first] = records as unknown as Array<{ state: { steps: Array<{ fallback?: unknown }> } }>;
      expect(first?.state.steps[0]?.fallback).toMatchObject({
        model: 'svc-3.7-flash',
      });

      const byKey = (rows: LimitStatsRow[]) =>
        new Map(rows.map((row) => [`${row.model}/${row.tenant}`, row]));
      const { rows } = await queue.stats({ windowMs: WINDOW_MS });
      const stats = byKey(rows);
      expect(stats.get('svc-3.5-flash-2603/acme')).toMatchObject({ requests: 2, fallbacks: 2 });
      expect(stats.get('svc-3.5-flash-2603/')).toMatchObject({ requests: 1, fallbacks: 1 });
      expect(stats.get('svc-3.7-flash/acme')).toMatchObject({ requests: 2, fallbacks: 0 });
      // Estimated before sending, then corrected to the usage the service reported.
      const usage = records
        .slice(0, 2)
        .reduce((sum, record) => sum + (record.state.usage as { totalTokens: number }).totalTokens, 0);
      expect(stats.get('svc-3.7-flash/acme')?.tokens).toBe(usage);

      if (backend.name === 'redis') {
        const cli = await runCli(
          [
            'runs',
            'stats',
            '--redis',
            REDIS_URL,
            '--namespace',
            ns.queueName,
            '--window-ms',
            String(WINDOW_MS),
          ],
          { timeoutMs: 60_000 },
        );
        expect(cli.stderr).toBe('');
        expect(cli.stdout).toMatch(/MODEL\s+TENANT\s+REQUESTS\s+TOKENS\s+WAITS\s+429S\s+FALLBACKS/);
        expect(cli.stdout).toMatch(/svc-3\.5-flash-2603\s+acme\s+2\s+\d+\s+\d+\s+0\s+2/);
      }
    }, 90_000);
  });
}
