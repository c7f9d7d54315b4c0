import type { Pool, PoolConfig } from 'pg';
import type {
  AddItemsOptions,
  ListRunsOptions,
  RunRecord,
  RunRecordInput,
  Store,
} from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors/run-conflict-error.js';
import type { ChatMessage } from '../api/types/chat.js';
import { migratePostgres, quoteIdentifier } from './postgres-migrations.js';
import { loadOptional, stampRecord } from './store-utils.js';

/** Options of `postgresStore`: a connection string or pool config (the store owns that pool), or your own pool. */
export interface PostgresStoreOptions {
  /** `postgres://user@host:5432/db`. */
  connectionString?: string;
  /** pg pool options, when not given a `connectionString`. */
  config?: PoolConfig;
  /** A pg pool you own (the store does not end it). */
  pool?: Pool;
  /** The schema holding the store's tables, created (and migrated) on first use. @default 'svc_agents' */
  schema?: string;
}

/** A store on PostgreSQL (pg, an optional peer dependency loaded on first use). */
export function postgresStore(options: PostgresStoreOptions = {}): Store {
  const schema = quoteIdentifier(options.schema ?? 'svc_agents');
  const ownsPool = options.pool === undefined;
  let poolPromise: Promise<Pool> | undefined;
  const pool = () => {
    poolPromise ??= (async () => {
      const created =
        options.pool ??
        new (await loadOptional('pg', () => import('pg'), 'postgresStore')).default.Pool(
          options.connectionString ? { connectionString: options.connectionString } : options.config,
        );
      const client = await created.connect();
      try {
        await migratePostgres(client, options.schema ?? 'svc_agents');
      } finally {
        client.release();
      }
      return created;
    })();
    poolPromise.catch(() => {
      poolPromise = undefined;
    });
    return poolPromise;
  };
  const toRecord = (row: { record: RunRecord; version: number; created_at: string; updated_at: string }) => ({
    ...row.record,
    version: row.version,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  });

  return {
    async createRun(input: RunRecordInput) {
      const db = await pool();
      const record = stampRecord(input, 1, Date.now());
      const { rowCount } = await db.query(
        `INSERT INTO ${schema}.runs (id, status, version, created_at, updated_at, record)
         VALUES ($1, $2, 1, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
        [record.id, record.status, record.createdAt, record.updatedAt, record],
      );
      if (rowCount !== 1) throw new RunConflictError({ runId: input.id });
      return record;
    },
    async getRun(id) {
      const db = await pool();
      const { rows } = await db.query(
        `SELECT record, version, created_at, updated_at FROM ${schema}.runs WHERE id = $1`,
        [id],
      );
      return rows[0] ? toRecord(rows[0]) : undefined;
    },
    async updateRun(id, expectedVersion, input) {
      const db = await pool();
      const record = stampRecord(input, expectedVersion + 1, 0);
      const { rows } = await db.query<{ created_at: string }>(
        `UPDATE ${schema}.runs SET status = $3, version = version + 1, updated_at = $4, record = $5
         WHERE id = $1 AND version = $2 RETURNING created_at`,
        [id, expectedVersion, record.status, record.updatedAt, record],
      );
      if (!rows[0]) throw new RunConflictError({ runId: id, expectedVersion });
      record.createdAt = Number(rows[0].created_at);
      return record;
    },
    async commitRun(id, expectedVersion, input, { sessionId, items }) {
      const db = await pool();
      const record = stampRecord(input, expectedVersion + 1, 0);
      const client = await db.connect();
      // A connection cut mid-transaction fails the query below; the client's own error event is not fatal.
      const ignore = () => undefined;
      client.on('error', ignore);
      try {
        // The run's write and its session append commit together or not at all.
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`svc-agents-session:${sessionId}`]);
        const { rows } = await client.query<{ created_at: string }>(
          `UPDATE ${schema}.runs SET status = $3, version = version + 1, updated_at = $4, record = $5
           WHERE id = $1 AND version = $2 RETURNING created_at`,
          [id, expectedVersion, record.status, record.updatedAt, record],
        );
        if (!rows[0]) {
          await client.query('ROLLBACK');
          throw new RunConflictError({ runId: id, expectedVersion });
        }
        if (items.length > 0) {
          await client.query(
            `INSERT INTO ${schema}.session_items (session_id, item)
             SELECT $1, value FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY ORDER BY ordinality`,
            [sessionId, JSON.stringify(items)],
          );
        }
        await client.query('COMMIT');
        client.off('error', ignore);
        client.release();
        record.createdAt = Number(rows[0].created_at);
        return record;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.off('error', ignore);
        // A connection that failed mid-transaction is not handed to the next caller.
        client.release(RunConflictError.isInstance(error) ? undefined : (error as Error));
        throw error;
      }
    },
    async listRuns({ status, limit = 100 }: ListRunsOptions = {}) {
      const db = await pool();
      const { rows } = await db.query(
        `SELECT record, version, created_at, updated_at FROM ${schema}.runs
         WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at DESC, id DESC LIMIT $2`,
        [status ?? null, limit],
      );
      return rows.map(toRecord);
    },
    async deleteRun(id) {
      const db = await pool();
      await db.query(`DELETE FROM ${schema}.runs WHERE id = $1`, [id]);
    },
    async getItems(sessionId, limit) {
      const db = await pool();
      const { rows } = await db.query<{ item: ChatMessage }>(
        `SELECT item FROM (SELECT item, seq FROM ${schema}.session_items WHERE session_id = $1
         ORDER BY seq DESC LIMIT $2) last ORDER BY seq`,
        [sessionId, limit ?? null],
      );
      return rows.map((row) => row.item);
    },
    async addItems(sessionId, items, { idempotencyKey }: AddItemsOptions = {}) {
      const db = await pool();
      const client = await db.connect();
      try {
        await client.query('BEGIN');
        // Appends to one session are serialised, so two appends never interleave their items.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`svc-agents-session:${sessionId}`]);
        if (idempotencyKey !== undefined) {
          const { rowCount } = await client.query(
            `INSERT INTO ${schema}.session_keys (session_id, key) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
            [sessionId, idempotencyKey],
          );
          if (rowCount !== 1) {
            await client.query('ROLLBACK');
            return;
          }
        }
        if (items.length > 0) {
          await client.query(
            `INSERT INTO ${schema}.session_items (session_id, item)
             SELECT $1, value FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY ORDER BY ordinality`,
            [sessionId, JSON.stringify(items)],
          );
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async popItem(sessionId) {
      const db = await pool();
      const { rows } = await db.query<{ item: ChatMessage }>(
        `DELETE FROM ${schema}.session_items WHERE (session_id, seq) IN (
           SELECT session_id, seq FROM ${schema}.session_items WHERE session_id = $1
           ORDER BY seq DESC LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING item`,
        [sessionId],
      );
      return rows[0]?.item;
    },
    async clearSession(sessionId) {
      const db = await pool();
      await db.query(
        `WITH a AS (DELETE FROM ${schema}.session_items WHERE session_id = $1)
         DELETE FROM ${schema}.session_keys WHERE session_id = $1`,
        [sessionId],
      );
    },
    async close() {
      const current = poolPromise;
      poolPromise = undefined;
      if (ownsPool && current) await (await current).end();
    },
  };
}
