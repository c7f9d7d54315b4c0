import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { QueueConnection } from '../../src/queue/queue-connection.js';
import { POSTGRES_URL, REDIS_URL } from '../helpers/infra-services.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { chunkContains, startTcpFaultProxy, type TcpFaultProxy } from '../helpers/tcp-fault-proxy.js';

const clientScript = join(import.meta.dirname, 'fixtures/limits-client.ts');

interface Answer {
  admitted: number;
  errors: number;
}

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(
    `a worker's limits backend on ${backend.name} behind a fault proxy`,
    () => {
      let ns: QueueNamespace | undefined;
      let proxy: TcpFaultProxy | undefined;
      let child: ChildProcess | undefined;
      afterEach(async () => {
        if (child && child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child!.once('exit', resolve));
          child.kill('SIGKILL');
          await exited;
        }
        await proxy?.close();
        await ns?.cleanup();
      });

      const start = async () => {
        ns = backend.create();
        const target = new URL(backend.name === 'redis' ? REDIS_URL : POSTGRES_URL);
        proxy = await startTcpFaultProxy({
          host: '127.0.0.1',
          port: Number(target.port || (backend.name === 'redis' ? 6379 : 5432)),
        });
        target.port = String(proxy.port);
        const connection: QueueConnection =
          backend.name === 'redis'
            ? target.toString()
            : { postgres: target.toString(), schema: (ns.connection as { schema: string }).schema };
        const started = fork(clientScript, {
          execArgv: ['--import', 'tsx'],
          env: { ...process.env, LIMITS_CLIENT: JSON.stringify({ connection, queueName: ns.queueName }) },
          stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        });
        child = started;
        await new Promise((resolve, reject) => {
          started.once('message', resolve);
          started.once('exit', (code) => reject(new Error(`limits client exited with ${code}`)));
        });
        return started;
      };
      // Resolves with the answer, or rejects when the process died first (a crash).
      const take = (process: ChildProcess, takes: number) =>
        new Promise<Answer>((resolve, reject) => {
          const exited = (code: number | null) => reject(new Error(`limits client exited with ${code}`));
          process.once('exit', exited);
          process.once('message', (answer) => {
            process.off('exit', exited);
            resolve(answer as Answer);
          });
          process.send({ takes });
        });

      it('should let every request of the worker go out unchecked while the backend is half-open (D2)', async () => {
        const limits = await start();
        expect(await take(limits, 3)).toEqual({ admitted: 3, errors: 0 });
        // The connection stays open and nothing comes back: before, every take waited forever.
        proxy!.stall();
        const stalled = await take(limits, 10);
        expect(stalled.admitted).toBe(10);
        // The first take timed out; the others in line went out without waiting out timeouts of their own.
        expect(stalled.errors).toBeGreaterThanOrEqual(1);
      });

      it('should survive a connection reset in the middle of a take and keep admitting (D3)', async () => {
        const limits = await start();
        expect(await take(limits, 2)).toEqual({ admitted: 2, errors: 0 });
        // Reset the connection as the take goes out (Redis: its script, by SHA1 once loaded; PostgreSQL:
        // its bucket read, inside its transaction).
        const reset = proxy!.resetBefore(chunkContains(backend.name === 'redis' ? 'EVALSHA' : 'FOR UPDATE'));
        const during = await take(limits, 1);
        await reset;
        expect(during.admitted).toBe(1);
        // The process is alive and admits through a fresh connection.
        expect(await take(limits, 2)).toMatchObject({ admitted: 2 });
        expect(limits.exitCode).toBeNull();
      });
    },
  );
}
