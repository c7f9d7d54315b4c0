import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';
import { dropPostgresSchemas, dropRedisKeys } from '../helpers/queue-backends.js';
import { childEnv, cliMain, runCli, tsxImport } from '../helpers/run-cli-process.js';

const agentsModule = join(import.meta.dirname, 'fixtures/approval-agents.ts');
const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

const backends = [
  {
    name: 'redis',
    available: redisUp,
    flags: (): string[] => ['--redis', REDIS_URL],
    open: (ns: string) => ({
      connection: REDIS_URL,
      store: redisStore({ url: REDIS_URL, prefix: `${ns}:` }),
    }),
    cleanup: (ns: string) => dropRedisKeys(`${ns}:*`, `svc-agents:${ns}*`),
  },
  {
    name: 'postgres',
    available: postgresUp,
    flags: (): string[] => ['--postgres', POSTGRES_URL],
    open: (ns: string) => ({
      connection: { postgres: POSTGRES_URL, schema: `${ns}_queue` },
      store: postgresStore({ connectionString: POSTGRES_URL, schema: ns }),
    }),
    cleanup: (ns: string) => dropPostgresSchemas(ns, `${ns}_queue`),
  },
];

/** `svc-agents worker` in its own process; resolves once it says it is ready. */
function startWorkerProcess(args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', tsxImport, cliMain, 'worker', ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      if (text.includes('worker ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
}

for (const backend of backends) {
  describe.skipIf(!backend.available)(`an approval-paused run on ${backend.name}`, () => {
    let emu: Emulator;
    let dir: string;
    let ns: string;
    const children: ChildProcess[] = [];
    beforeEach(async () => {
      emu = await startEmulator({ port: 0 });
      dir = await mkdtemp(join(tmpdir(), 'svc-restart-'));
      ns = uniqueNamespace('restart');
    });
    afterEach(async () => {
      for (const child of children) child.kill('SIGKILL');
      await backend.cleanup(ns);
      await emu.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('should survive a restart of every process and complete after `runs approve`', async () => {
      const log = join(dir, 'refunds.log');
      const env = { FIXTURE_API_KEY: emu.apiKey, FIXTURE_BASE_URL: emu.baseURL, FIXTURE_LOG: log };
      const flags = [...backend.flags(), '--namespace', ns];
      emu.script([
        {
          message: {
            content: '',
            tool_calls: [{ id: 'call_refund', function: { name: 'refund', arguments: '{}' } }],
          },
        },
        { message: { content: 'Refunded order 42.' } },
      ]);
      children.push(await startWorkerProcess(['--agents', agentsModule, ...flags], env));

      // The client process: enqueue, wait for the pause, then go away.
      const first = backend.open(ns);
      const queue = new RunQueue({ connection: first.connection, store: first.store, name: ns });
      const runId = await queue.enqueue('support', 'Refund order 42', { runId: 'refund-42' });
      expect(await queue.waitUntilFinished(runId, { timeout: 20_000 })).toMatchObject({
        status: 'interrupted',
      });
      await queue.close();
      await first.store.close?.();

      // Every process goes: the worker is killed outright; a new one starts.
      children[0]!.kill('SIGKILL');
      children.push(await startWorkerProcess(['--agents', agentsModule, ...flags], env));

      const shown = await runCli(['runs', 'show', runId, ...flags, '--json'], { env });
      expect(shown.code, shown.stderr).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({
        status: 'interrupted',
        interruptions: [{ toolCallId: 'call_refund', toolName: 'refund' }],
      });
      const listed = await runCli(['runs', 'ls', '--status', 'interrupted', ...flags], { env });
      expect(listed.stdout).toMatch(/refund-42\s+interrupted\s+support\s+\S+\s+refund:call_refund/);

      const approved = await runCli(['runs', 'approve', runId, 'call_refund', ...flags, '--json'], { env });
      expect(approved.code, approved.stderr).toBe(0);
      expect(JSON.parse(approved.stdout)).toMatchObject({ id: runId, status: 'running' });

      const second = backend.open(ns);
      const again = new RunQueue({ connection: second.connection, store: second.store, name: ns });
      try {
        const done = await again.waitUntilFinished(runId, { timeout: 20_000 });
        expect(done).toMatchObject({ status: 'completed', text: 'Refunded order 42.' });
      } finally {
        await again.close();
        await second.store.close?.();
      }
      const refunds = (await readFile(log, 'utf8')).trim().split('\n');
      expect(refunds).toHaveLength(1);
      expect(refunds[0]).toMatch(new RegExp(`^refund-42:0:call_refund ${children[1]!.pid}$`));
    }, 60_000);
  });
}
