import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RunQueue } from '../../src/queue/run-queue.js';
import { startWorker } from '../../src/queue/start-worker.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { BackendUnreachableError } from '../../src/stores/store-errors.js';

/** A port nothing listens on: bound once by the OS, then closed. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const port = await deadPort();
const targets = [
  {
    name: 'Redis',
    connection: `redis://127.0.0.1:${port}`,
    store: () => redisStore({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 300 }),
  },
  {
    name: 'PostgreSQL',
    connection: { postgres: `postgres://postgres@127.0.0.1:${port}/test` },
    store: () =>
      postgresStore({
        connectionString: `postgres://postgres@127.0.0.1:${port}/test`,
        connectTimeoutMs: 300,
      }),
  },
];

function expectUnreachable(error: unknown, backend: string) {
  expect(BackendUnreachableError.isInstance(error), String(error)).toBe(true);
  const unreachable = error as BackendUnreachableError;
  expect(unreachable).toMatchObject({ backend, timeoutMs: 300, transient: true });
  expect(unreachable.address).toContain(`127.0.0.1:${port}`);
  expect(unreachable.message).toContain('connection refused (ECONNREFUSED)');
}

for (const target of targets) {
  describe(`a first connection to a dead ${target.name}`, { timeout: 30_000 }, () => {
    it('should make startWorker reject with the address and the cause', async () => {
      const error = await startWorker({
        connection: target.connection,
        store: memoryStore(),
        agents: {},
        handleSignals: false,
        connectTimeoutMs: 300,
      }).catch((caught: unknown) => caught);

      expectUnreachable(error, target.name);
    });

    it('should make RunQueue.enqueue reject with a QueueUnavailableError caused by it', async () => {
      const queue = new RunQueue({
        connection: target.connection,
        store: memoryStore(),
        connectTimeoutMs: 300,
      });
      try {
        const error = (await queue.enqueue('chat', 'Hi').catch((caught: unknown) => caught)) as Error;

        expect(error.name).toBe('QueueUnavailableError');
        expect(error.message).toContain(`127.0.0.1:${port}`);
        expectUnreachable(error.cause, target.name);
      } finally {
        await queue.close();
      }
    });

    it("should make the store's first operation reject with it", async () => {
      const store = target.store();
      try {
        const error = await store.getRun('run-1').catch((caught: unknown) => caught);

        expectUnreachable(error, target.name);
      } finally {
        await store.close();
      }
    });
  });
}
