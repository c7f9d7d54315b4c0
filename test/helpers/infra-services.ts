import { connect } from 'node:net';

/** The Redis the project's machines run for tests. */
export const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The PostgreSQL the project's machines run for tests (trust auth). */
export const POSTGRES_URL = process.env.SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const HOW_TO_START = {
  redis: 'start it with `redis-server --port 6379 --daemonize yes`',
  postgres:
    'start it with `pg_ctlcluster <version> main start` (database `test`, user `postgres`, trust auth)',
};

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(500);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * Whether a suite needing `service` runs: true when it is reachable. With `CI=true` a missing service
 * fails loudly; elsewhere the suite is skipped with one line saying how to start it.
 */
export async function serviceAvailable(service: 'redis' | 'postgres'): Promise<boolean> {
  const port =
    service === 'redis'
      ? Number(new URL(REDIS_URL).port || 6379)
      : Number(new URL(POSTGRES_URL).port || 5432);
  if (await reachable(port)) return true;
  const message = `${service} is not reachable on 127.0.0.1:${port}; ${HOW_TO_START[service]}`;
  if (process.env.CI === 'true') throw new Error(`CI=true and ${message}`);
  console.warn(`Skipping ${service} suites: ${message}`);
  return false;
}

/** A key prefix / schema name unique to this test process. */
export function uniqueNamespace(label: string): string {
  return `svc_test_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}
