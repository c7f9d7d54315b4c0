import type { PoolConfig } from 'pg';
import { loadOptional } from '../transport/load-module.js';
import { WorkerClockSkewError } from './queue-errors.js';

const SAMPLES = 3;
const TIMEOUT_MS = 10_000;

/**
 * Refuses to start a worker of the PostgreSQL queue whose clock is more than `toleranceMs` away from the
 * database's (`WorkerClockSkewError`): that backend takes lock and stalled-check times from each worker's
 * `Date.now()`. The database's `clock_timestamp()` is read a few times and compared with the middle of
 * the round trip that got it (the shortest round trip counts). A database that cannot be reached is left
 * to the worker's own connection to report (`onError` hears it here).
 */
export async function checkWorkerClock(
  config: PoolConfig,
  toleranceMs: number,
  onError: (error: unknown) => void,
): Promise<void> {
  const pg = (await loadOptional('pg', () => import('pg'), 'svc-agents/queue')).default;
  const client = new pg.Client({
    ...config,
    connectionTimeoutMillis: TIMEOUT_MS,
    query_timeout: TIMEOUT_MS,
  } as PoolConfig);
  client.on('error', () => undefined);
  let best: { rtt: number; skew: number } | undefined;
  try {
    await client.connect();
    for (let i = 0; i < SAMPLES; i++) {
      const sent = Date.now();
      const { rows } = await client.query<{ now: string }>(
        'SELECT (extract(epoch from clock_timestamp()) * 1000)::float8 AS now',
      );
      const received = Date.now();
      const skew = (sent + received) / 2 - Number(rows[0]?.now);
      if (!best || received - sent < best.rtt) best = { rtt: received - sent, skew };
    }
  } catch (error) {
    onError(error);
    return;
  } finally {
    await client.end().catch(() => undefined);
  }
  if (best && Math.abs(best.skew) - best.rtt / 2 > toleranceMs) {
    throw new WorkerClockSkewError({ skewMs: best.skew, toleranceMs });
  }
}
