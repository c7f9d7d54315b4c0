import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStore } from '../../src/stores/redis-store.js';
import { eventually } from '../helpers/eventually.js';
import { serviceAvailable } from '../helpers/infra-services.js';

const redisUp = await serviceAvailable('redis');

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

// An own redis-server (its script cache is flushed here; the shared one is never touched).
describe.skipIf(!redisUp)('redisStore scripts on a redis-server of its own', () => {
  let server: ChildProcess;
  let dir: string;
  let url: string;
  let admin: Redis;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-evalsha-'));
    const port = await freePort();
    server = spawn(
      'redis-server',
      ['--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir],
      {
        stdio: 'ignore',
      },
    );
    url = `redis://127.0.0.1:${port}`;
    admin = new Redis(url, { lazyConnect: true, retryStrategy: () => 50 });
    admin.on('error', () => undefined);
    await eventually(async () => (await admin.ping().catch(() => '')) === 'PONG');
  });
  afterAll(async () => {
    admin?.disconnect();
    server?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('should send each script in full once, then by its SHA1, and again in full after the cache was flushed', async () => {
    const monitor = await admin.monitor();
    const sent: string[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      const command = String(args[0]).toLowerCase();
      if (command === 'eval' || command === 'evalsha') sent.push(command);
    });
    const store = redisStore({ url, prefix: 'sha:' });
    const input = { id: 'r', agentName: 'a', status: 'running' as const, state: {}, interruptions: [] };
    await store.createRun(input);
    for (let version = 1; version <= 10; version++) await store.updateRun('r', version, input);
    await admin.script('FLUSH');
    await store.updateRun('r', 11, input);
    await store.updateRun('r', 12, input);
    expect((await store.getRun('r'))?.version).toBe(13);
    await eventually(async () => sent.length >= 15);
    // First use: NOSCRIPT, then EVAL; then EVALSHA; after the flush: NOSCRIPT, EVAL, then EVALSHA.
    expect(sent).toEqual(['evalsha', 'eval', ...Array(10).fill('evalsha'), 'evalsha', 'eval', 'evalsha']);
    await store.close();
    monitor.disconnect();
  });
});
