import type { Pool, PoolConfig } from 'pg';
import { quoteIdentifier } from '../stores/postgres-migrations.js';
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

/**
 * Keeps BullMQ's stalled-run check of a PostgreSQL queue running: that check runs at most once per
 * interval after the time it last stored (`meta` field `stalled-check`, taken from a worker's clock), so
 * one worker whose clock jumped ahead for a moment stores a time in the future and no worker looks for
 * the runs of dead workers until then. Every `intervalMs` a stored time more than `toleranceMs` ahead of
 * the database's clock is removed (the next check then runs). Answers the function that stops it.
 */
export function repairStalledCheck(
  config: PoolConfig,
  schema: string,
  queue: string,
  {
    intervalMs,
    toleranceMs,
    onError,
  }: { intervalMs: number; toleranceMs: number; onError: (error: unknown) => void },
): () => Promise<void> {
  let pool: Promise<Pool> | undefined;
  const open = () => {
    pool ??= loadOptional('pg', () => import('pg'), 'svc-agents/queue').then(({ default: pg }) => {
      const made = new pg.Pool({
        ...config,
        max: 1,
        idleTimeoutMillis: 1_000,
        connectionTimeoutMillis: TIMEOUT_MS,
        query_timeout: TIMEOUT_MS,
      } as PoolConfig);
      made.on('error', () => undefined);
      return made;
    });
    return pool;
  };
  const repair = async () => {
    await (await open()).query(
      `DELETE FROM ${quoteIdentifier(schema)}.meta WHERE queue = $1 AND field = 'stalled-check'
       AND value::bigint > (extract(epoch from clock_timestamp()) * 1000)::bigint + $2`,
      [queue, toleranceMs],
    );
  };
  const run = () => {
    repair().catch((error: unknown) => {
      // No `meta` table yet: BullMQ creates it on first use.
      if ((error as { code?: string }).code !== '42P01') onError(error);
    });
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    const opened = pool;
    pool = undefined;
    await (await opened)?.end().catch(() => undefined);
  };
}
