import { type ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import type { QueueConnection } from '../../src/queue/queue-connection.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { startWorker } from '../../src/queue/start-worker.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable } from '../helpers/infra-services.js';
import { childEnv, cliMain, runCli, tsxImport } from '../helpers/run-cli-process.js';

// Everything here runs on the defaults (no queue name, prefix, schema or --namespace anywhere), so each
// backend gets a place of its own: a Redis database number, a PostgreSQL database, both emptied after.
const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);
const REDIS_DB = 11;
const PG_DATABASE = `svc_test_defaults_${process.pid}`;

interface Backend {
  name: string;
  available: boolean;
  url: string;
  flags: string[];
  connection: QueueConnection;
  openStore(options?: { prefix?: string }): Store;
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
}

const redisUrl = `${REDIS_URL}/${REDIS_DB}`;
const pgUrl = POSTGRES_URL.replace(/\/[^/]*$/, `/${PG_DATABASE}`);

async function withAdminPostgres(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function emptyRedisDb(): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    const keys = [...(await redis.keys('svc-agents*')), ...(await redis.keys('svc_agents*'))];
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}

const backends: Backend[] = [
  {
    name: 'redis',
    available: redisUp,
    url: redisUrl,
    flags: ['--redis', redisUrl],
    connection: redisUrl,
    openStore: (options = {}) => redisStore({ url: redisUrl, ...options }),
    setUp: emptyRedisDb,
    tearDown: emptyRedisDb,
  },
  {
    name: 'postgres',
    available: postgresUp,
    url: pgUrl,
    flags: ['--postgres', pgUrl],
    connection: { postgres: pgUrl },
    openStore: () => postgresStore({ connectionString: pgUrl }),
    setUp: async () => {
      await withAdminPostgres(`DROP DATABASE IF EXISTS ${PG_DATABASE} WITH (FORCE)`);
      await withAdminPostgres(`CREATE DATABASE ${PG_DATABASE}`);
    },
    tearDown: () => withAdminPostgres(`DROP DATABASE IF EXISTS ${PG_DATABASE} WITH (FORCE)`),
  },
];

/** `svc-agents worker <args> --json` in its own process, resolved once it prints that it is ready. */
async function startCliWorker(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', tsxImport, cliMain, 'worker', ...args, '--json'], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  for await (const chunk of child.stdout!) {
    out += chunk;
    try {
      return { child, ready: JSON.parse(out) as Record<string, unknown>, stderr: () => err };
    } catch {
      // not complete yet
    }
  }
  throw new Error(`svc-agents worker exited before it was ready: ${out}${err}`);
}

for (const backend of backends) {
  describe.skipIf(!backend.available)(`the defaults on ${backend.name}`, { timeout: 120_000 }, () => {
    let emu: Emulator;
    const children: ChildProcess[] = [];
    let env: Record<string, string>;

    beforeAll(async () => {
      await backend.setUp();
      emu = await startEmulator({ port: 0 });
      env = { SVC_BASE_URL: emu.baseURL, SVC_API_KEY: emu.apiKey };
    });
    afterAll(async () => {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      await emu.close();
      await backend.tearDown();
    });

    it('should run in a CLI worker what library code enqueued with its defaults, and list it with runs ls', async () => {
      const worker = await startCliWorker(backend.flags, env);
      children.push(worker.child);
      const store = backend.openStore();
      const queue = new RunQueue({ connection: backend.connection, store });
      try {
        emu.script([{ message: { content: 'Answered by the CLI worker.' } }]);
        const runId = await queue.enqueue('chat', 'Hi');
        const done = await queue.waitUntilFinished(runId, { timeout: 60_000 });
        expect(done).toMatchObject({ status: 'completed', text: 'Answered by the CLI worker.' });
        expect(worker.ready).toMatchObject({ queue: 'svc-agents-runs' });

        const listed = await runCli(['runs', 'ls', ...backend.flags, '--json'], { env });
        expect(listed.code, listed.stderr).toBe(0);
        expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((run) => run.id)).toContain(runId);
      } finally {
        worker.child.kill('SIGTERM');
        await queue.close();
        await store.close?.();
      }
    });

    it('should run in a library worker with its defaults what the CLI queued (runs approve)', async () => {
      const client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      const refund = defineTool({
        name: 'refund',
        description: 'Refunds an order.',
        parameters: z.object({}),
        needsApproval: true,
        execute: () => 'refunded',
      });
      const support = new Agent({ client, model: 'svc-3.5-flash', tools: [refund] });
      const store = backend.openStore();
      const worker = await startWorker({
        connection: backend.connection,
        store,
        agents: { support },
        handleSignals: false,
      });
      const queue = new RunQueue({ connection: backend.connection, store });
      try {
        emu.script([
          {
            message: {
              content: '',
              tool_calls: [{ id: 'call_refund', function: { name: 'refund', arguments: '{}' } }],
            },
          },
          { message: { content: 'Refunded order 42.' } },
        ]);
        const runId = await queue.enqueue('support', 'Refund order 42');
        expect(await queue.waitUntilFinished(runId, { timeout: 30_000 })).toMatchObject({
          status: 'interrupted',
        });

        const approved = await runCli(['runs', 'approve', runId, 'call_refund', ...backend.flags], { env });
        expect(approved.code, approved.stderr).toBe(0);

        const done = await queue.waitUntilFinished(runId, { timeout: 30_000 });
        expect(done).toMatchObject({ status: 'completed', text: 'Refunded order 42.' });
      } finally {
        await worker.close();
        await queue.close();
        await store.close?.();
        await client.close();
      }
    });
  });
}

describe.skipIf(!redisUp)('runs under the old CLI default namespace', { timeout: 120_000 }, () => {
  beforeAll(emptyRedisDb);
  afterAll(emptyRedisDb);

  it('should list them beside the default ones, with one warning naming it', async () => {
    const legacy = redisStore({ url: redisUrl, prefix: 'svc_agents:' });
    const current = redisStore({ url: redisUrl });
    const input = {
      agentName: 'chat',
      status: 'completed' as const,
      state: { messages: [] },
      interruptions: [],
    };
    await legacy.createRun({ ...input, id: 'old-run' });
    await current.createRun({ ...input, id: 'new-run' });
    await Promise.all([legacy.close(), current.close()]);

    const listed = await runCli(['runs', 'ls', '--redis', redisUrl, '--json']);

    expect(listed.code, listed.stderr).toBe(0);
    const ids = (JSON.parse(listed.stdout) as Array<{ id: string }>).map((run) => run.id);
    expect(ids.sort()).toEqual(['new-run', 'old-run']);
    const warnings = listed.stderr.split('\n').filter((line) => line.startsWith('warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('svc_agents');
    const shown = await runCli(['runs', 'show', 'old-run', '--redis', redisUrl, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: 'old-run', status: 'completed' });
  });
});
