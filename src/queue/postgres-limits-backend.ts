import type { Pool, PoolClient, PoolConfig } from 'pg';
import { loadOptional } from '../core/load-module.js';
import { quoteIdentifier } from '../stores/postgres-migrations.js';
import {
  emptyStatsRow,
  LIMITS_BACKEND_TIMEOUT_MS,
  type LimitStatField,
  type LimitStatsRow,
  type LimitsBackend,
} from './limits-backend.js';
import { type BucketState, takeFromBuckets } from './rate-limits.js';

const COLUMNS: Record<LimitStatField, string> = {
  requests: 'requests',
  tokens: 'tokens',
  waits: 'waits',
  rateLimited: 'rate_limited',
  fallbacks: 'fallbacks',
};
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/**
 * Limits on PostgreSQL, beside BullMQ's tables in the queue's schema: a take locks its bucket rows
 * (`FOR UPDATE`, in key order so takes never deadlock) and runs `takeFromBuckets` on the database's clock.
 */
export function postgresLimitsBackend(config: PoolConfig, schemaName: string, queue: string): LimitsBackend {
  const schema = quoteIdentifier(schemaName);
  let poolPromise: Promise<Pool> | undefined;
  const pool = () => {
    poolPromise ??= (async () => {
      const pg = await loadOptional('pg', () => import('pg'), 'svc-agents/queue limits');
      // Every call is bounded, also on a half-open connection that never answers: the limiter then lets
      // requests go out unchecked instead of holding the worker's runs back.
      const created = new pg.default.Pool({
        ...config,
        max: 2,
        connectionTimeoutMillis: LIMITS_BACKEND_TIMEOUT_MS,
        query_timeout: LIMITS_BACKEND_TIMEOUT_MS,
        statement_timeout: LIMITS_BACKEND_TIMEOUT_MS,
        keepAlive: true,
      });
      // A dropped idle connection must not crash the process; the next query reconnects.
      created.on('error', ignore);
      await inTransaction(created, async (client) => {
        // Workers start together: one creates the tables, the others wait for it.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`svc-agents-limits:${schemaName}`]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.svc_agents_buckets (
          key text PRIMARY KEY, requests float8 NOT NULL, tokens float8 NOT NULL,
          updated_at bigint NOT NULL, paused_until bigint NOT NULL DEFAULT 0)`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.svc_agents_limit_stats (
          queue text NOT NULL, win bigint NOT NULL, model text NOT NULL, tenant text NOT NULL,
          requests bigint NOT NULL DEFAULT 0, tokens bigint NOT NULL DEFAULT 0, waits bigint NOT NULL DEFAULT 0,
          rate_limited bigint NOT NULL DEFAULT 0, fallbacks bigint NOT NULL DEFAULT 0,
          PRIMARY KEY (queue, win, model, tenant))`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.svc_agents_backlog (
          queue text NOT NULL, tenant text NOT NULL, runs bigint NOT NULL, PRIMARY KEY (queue, tenant))`);
      });
      return created;
    })();
    poolPromise.catch(() => {
      poolPromise = undefined;
    });
    return poolPromise;
  };

  return {
    async take(buckets, cost) {
      if (buckets.length === 0) return 0;
      const sorted = [...buckets].sort((a, b) => a.key.localeCompare(b.key));
      return inTransaction(await pool(), async (client) => {
        const { rows } = await client.query<{
          key: string;
          requests: number;
          tokens: number;
          updated_at: string;
          paused_until: string;
          now: string;
        }>(
          `SELECT key, requests, tokens, updated_at, paused_until, ${NOW_MS} AS now FROM ${schema}.svc_agents_buckets
           WHERE key = ANY($1) ORDER BY key FOR UPDATE`,
          [sorted.map((bucket) => bucket.key)],
        );
        const now = rows[0]
          ? Number(rows[0].now)
          : Number((await client.query(`SELECT ${NOW_MS} AS now`)).rows[0].now);
        const byKey = new Map(rows.map((row) => [row.key, row]));
        const states = sorted.map((bucket): BucketState | undefined => {
          const row = byKey.get(bucket.key);
          return (
            row && {
              requests: row.requests,
              tokens: row.tokens,
              updatedAt: Number(row.updated_at),
              pausedUntil: Number(row.paused_until),
            }
          );
        });
        const taken = takeFromBuckets(sorted, states, cost, now);
        if (taken.wait > 0) return taken.wait;
        for (const [i, bucket] of sorted.entries()) {
          const state = taken.states[i]!;
          await client.query(
            `INSERT INTO ${schema}.svc_agents_buckets (key, requests, tokens, updated_at, paused_until)
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (key) DO UPDATE
             SET requests = $2, tokens = $3, updated_at = $4`,
            [bucket.key, state.requests, state.tokens, state.updatedAt, state.pausedUntil],
          );
        }
        return 0;
      });
    },
    async adjust(buckets, tokens) {
      const keys = buckets.filter((bucket) => bucket.tokenRate >= 0).map((bucket) => bucket.key);
      if (keys.length === 0 || tokens === 0) return;
      await (await pool()).query(
        `UPDATE ${schema}.svc_agents_buckets SET tokens = tokens - $2 WHERE key = ANY($1)`,
        [keys, tokens],
      );
    },
    async pause(bucket, ms) {
      await (await pool()).query(
        `INSERT INTO ${schema}.svc_agents_buckets (key, requests, tokens, updated_at, paused_until)
         VALUES ($1, 1, $2, ${NOW_MS}, ${NOW_MS} + $3) ON CONFLICT (key) DO UPDATE
         SET paused_until = GREATEST(${schema}.svc_agents_buckets.paused_until, EXCLUDED.paused_until)`,
        [bucket.key, bucket.tokenCapacity, Math.ceil(ms)],
      );
    },
    async count(window, model, tenant, add) {
      const fields = (Object.keys(add) as LimitStatField[]).filter((field) => add[field]);
      if (fields.length === 0) return;
      const columns = fields.map((field) => COLUMNS[field]);
      const values = fields.map((field) => Math.round(add[field] ?? 0));
      await (await pool()).query(
        `INSERT INTO ${schema}.svc_agents_limit_stats (queue, win, model, tenant, ${columns.join(', ')})
         VALUES ($1, $2, $3, $4, ${values.map((_, i) => `$${i + 5}`).join(', ')})
         ON CONFLICT (queue, win, model, tenant) DO UPDATE SET
         ${columns.map((column) => `${column} = ${schema}.svc_agents_limit_stats.${column} + EXCLUDED.${column}`).join(', ')}`,
        [queue, window, model, tenant, ...values],
      );
    },
    async stats(window) {
      const { rows } = await (await pool()).query<Record<string, string>>(
        `SELECT * FROM ${schema}.svc_agents_limit_stats WHERE queue = $1 AND win = $2 ORDER BY model, tenant`,
        [queue, window],
      );
      return rows.map((row) => {
        const stats: LimitStatsRow = emptyStatsRow(row.model ?? '', row.tenant ?? '');
        for (const [field, column] of Object.entries(COLUMNS))
          stats[field as LimitStatField] = Number(row[column]);
        return stats;
      });
    },
    async enterBacklog(tenant) {
      const { rows } = await (await pool()).query<{ runs: string }>(
        `INSERT INTO ${schema}.svc_agents_backlog (queue, tenant, runs) VALUES ($1, $2, 1)
         ON CONFLICT (queue, tenant) DO UPDATE SET runs = ${schema}.svc_agents_backlog.runs + 1 RETURNING runs`,
        [queue, tenant],
      );
      return Number(rows[0]?.runs ?? 1);
    },
    async leaveBacklog(tenant) {
      await (await pool()).query(
        `UPDATE ${schema}.svc_agents_backlog SET runs = GREATEST(0, runs - 1) WHERE queue = $1 AND tenant = $2`,
        [queue, tenant],
      );
    },
    async close() {
      const opened = poolPromise;
      poolPromise = undefined;
      if (opened) await (await opened.catch(() => undefined))?.end();
    },
  };
}

const ignore = () => undefined;

async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // Checked out, the client is not listened to by the pool: a reset between two queries of the
  // transaction would be an unhandled 'error' and crash the worker. The query fails instead.
  client.on('error', ignore);
  let failure: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    failure = error as Error;
    await client.query('ROLLBACK').catch(ignore);
    throw error;
  } finally {
    // A failed client is destroyed, not handed to the next take (it keeps the listener: a dying
    // connection may still emit 'error').
    if (!failure) client.removeListener('error', ignore);
    client.release(failure);
  }
}
