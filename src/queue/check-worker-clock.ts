import type { Pool, PoolConfig } from 'pg';
import { loadOptional } from '../core/load-module.js';
import { quoteIdentifier } from '../stores/postgres-migrations.js';
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
    best = await measureSkew(client);
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

// This process's clock minus the database's `clock_timestamp()`, compared with the middle of the round
// trip that got it (the shortest of a few counts), and that round trip.
async function measureSkew(db: Pick<Pool, 'query'>): Promise<{ rtt: number; skew: number }> {
  let best: { rtt: number; skew: number } | undefined;
  for (let i = 0; i < SAMPLES; i++) {
    const sent = Date.now();
    const { rows } = await db.query<{ now: string }>(
      'SELECT (extract(epoch from clock_timestamp()) * 1000)::float8 AS now',
    );
    const received = Date.now();
    const skew = (sent + received) / 2 - Number(rows[0]?.now);
    if (!best || received - sent < best.rtt) best = { rtt: received - sent, skew };
  }
  return best!;
}

/** Options of `watchWorkerClock`. */
interface WatchWorkerClockOptions {
  /** The largest difference from the database's clock allowed, in ms. */
  toleranceMs: number;
  /** How often the wall clock is compared with the monotonic one (cheap, local). */
  everyMs: number;
  /** The clock left the tolerance (the error says by how much): stop taking runs. */
  onSkewed: (error: WorkerClockSkewError) => void;
  /** The clock agrees with the database's again: take runs again, repair what the jump stored. */
  onRecovered: () => void;
  onError: (error: unknown) => void;
}

/**
 * Watches a started worker's clock: a jump of the wall clock (an NTP step, a VM resumed, a wrong manual
 * set) shows as a difference between `Date.now()` and the monotonic `performance.now()`; then, and until
 * the clock is back, the database's clock says whether the worker is off by more than `toleranceMs`.
 * Answers the function that stops it.
 */
export function watchWorkerClock(pool: () => Promise<Pick<Pool, 'query'>>, options: WatchWorkerClockOptions) {
  const { toleranceMs, everyMs, onSkewed, onRecovered, onError } = options;
  const offset = () => Date.now() - performance.now();
  let baseline = offset();
  let skewed = false;
  let checking = false;
  const tick = async () => {
    if (checking) return;
    if (!skewed && Math.abs(offset() - baseline) <= toleranceMs) return;
    checking = true;
    try {
      const { rtt, skew } = await measureSkew(await pool());
      if (Math.abs(skew) - rtt / 2 > toleranceMs) {
        if (!skewed) onSkewed(new WorkerClockSkewError({ skewMs: skew, toleranceMs }));
        skewed = true;
        return;
      }
      // The jump was a correction, or is over: the present clock is the reference from now on.
      baseline = offset();
      if (skewed) {
        skewed = false;
        onRecovered();
      }
    } catch (error) {
      onError(error);
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Keeps BullMQ's stalled-run check of a PostgreSQL queue running: that check runs at most once per
 * interval after the time it last stored (`meta` field `stalled-check`, taken from a worker's clock), so
 * one worker whose clock jumped ahead for a moment stores a time in the future and no worker looks for
 * the runs of dead workers until then. Every `intervalMs` a stored time more than `toleranceMs` ahead of
 * the database's clock is removed (the next check then runs). Answers how to stop it, to repair at once,
 * and its connection pool.
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
): { stop: () => Promise<void>; repairNow: () => void; pool: () => Promise<Pool> } {
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
  return {
    async stop() {
      clearInterval(timer);
      const opened = pool;
      pool = undefined;
      await (await opened)?.end().catch(() => undefined);
    },
    repairNow: run,
    pool: open,
  };
}
