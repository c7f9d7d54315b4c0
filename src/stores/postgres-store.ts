import type { Pool, PoolClient, PoolConfig, QueryResult, QueryResultRow } from 'pg';
import type { RunQuery } from '../agent/durable/run-query.js';
import type {
  AddItemsOptions,
  ListRunsOptions,
  PruneRunsOptions,
  RunRecord,
  RunRecordInput,
  WriteRunOptions,
} from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors.js';
import type { ChatMessage } from '../api/types/chat.js';
import { defaults } from '../core/defaults.js';
import { loadOptional } from '../core/load-module.js';
import { checkPostgresReachable } from './first-connect.js';
import { type GuardedStore, guardStore, isProgrammingError } from './guard-store.js';
import { isTransientSqlState } from './is-transient.js';
import { migratePostgres, quoteIdentifier } from './postgres-migrations.js';
import { createPostgresRunIndex, insertRunQuery, updateRunQuery } from './postgres-run-index.js';
import { createPostgresSharedState } from './postgres-shared-state.js';
import { createPostgresSignals, signalChannelOf } from './postgres-signals.js';
import { APPEND_AND_SIGNAL } from './run-events-signal.js';
import { normalizeRunQuery } from './run-query-input.js';
import { StoredRunInvalidError } from './store-errors.js';
import { resolveStoreOptions, type StoreOptions } from './store-options.js';
import { createPruneOnWrite, stampRecord, writeIdOf } from './store-utils.js';
import { checkStoredRun, isFinished, skippedRunWarning } from './stored-run.js';

/** Options of `postgresStore`: a connection string or pool config (the store owns that pool), or your own pool. */
export interface PostgresStoreOptions extends StoreOptions {
  /** `postgres://user@host:5432/db`. */
  connectionString?: string;
  /** pg pool options (they override the store's timeouts and keepalive). */
  config?: PoolConfig;
  /** A pg pool you own (the store does not end it, nor listen to its `'error'` events). */
  pool?: Pool;
  /** The schema holding the store's tables, created (and migrated) on first use. @default 'svc_agents' */
  schema?: string;
}

interface RunRow {
  id: string;
  record: Record<string, unknown> | null;
  version: number;
  created_at: string;
  updated_at: string;
  write_id: string | null;
}

// Attempts at an operation that is safe to repeat, when its connection is lost.
const ATTEMPTS = 3;

// A pg DatabaseError carries a SQLSTATE `code` and a `severity`: PostgreSQL answered. Anything else the
// driver throws (reset, refused, "Connection terminated", "Query read timeout", a pool connect timeout)
// means no answer.
function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error) || isProgrammingError(error)) return false;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  if (typeof severity === 'string' && typeof code === 'string') return isTransientSqlState(code);
  return true;
}

const RUN_COLUMNS = 'id, record, version, created_at, updated_at, write_id';

/**
 * A store on PostgreSQL (pg, an optional peer dependency loaded on first use). Every query times out after
 * `commandTimeoutMs`; a dropped idle connection is logged and replaced; finished runs older than
 * `retentionMs` are pruned on write (at most once a minute) and by `pruneRuns()`, which also deletes
 * expired event logs and values (reads treat them as absent before). Run event logs live in `run_events`,
 * shared values in `shared_values`; signals use LISTEN/NOTIFY on one channel per schema, through one
 * connection of the pool the store holds from the first `onSignal` until `close()` (a pool you pass
 * needs room for it: `max` of at least 2).
 */
export function postgresStore(options: PostgresStoreOptions = {}): GuardedStore {
  const { commandTimeoutMs, connectTimeoutMs, retentionMs, onWarning } = resolveStoreOptions(options);
  const schemaName = options.schema ?? defaults.postgresSchema;
  const schema = quoteIdentifier(schemaName);
  const table = `${schemaName}.runs`;
  const ownsPool = options.pool === undefined;
  let warnedAboutConnection = false;
  const warnConnection = (error: Error) => {
    if (warnedAboutConnection) return;
    warnedAboutConnection = true;
    onWarning(`postgresStore: an idle connection was lost and will be replaced (${error.message})`);
  };
  // The pool is made once; the migration on first use is tried again on the next operation if it failed.
  let created: Pool | undefined = options.pool;
  const createPool = async (): Promise<Pool> => {
    const pg = (await loadOptional('pg', () => import('pg'), 'postgresStore')).default;
    const made = new pg.Pool({
      connectionTimeoutMillis: commandTimeoutMs,
      query_timeout: commandTimeoutMs,
      statement_timeout: commandTimeoutMs,
      keepAlive: true,
      ...options.config,
      ...(options.connectionString && { connectionString: options.connectionString }),
    });
    // An idle client that loses its connection (restart, failover, pg_terminate_backend) is removed by
    // the pool, which then emits 'error': without a listener that would crash the process.
    made.on('error', warnConnection);
    return made;
  };
  let everConnected = false;
  const migrated = async (): Promise<Pool> => {
    // Bounded once: a store that never connected gives up within connectTimeoutMs, naming the address.
    if (ownsPool && !everConnected) {
      const config = {
        ...options.config,
        ...(options.connectionString && { connectionString: options.connectionString }),
      };
      await checkPostgresReachable(config, connectTimeoutMs);
    }
    everConnected = true;
    created ??= await createPool();
    const client = await created.connect();
    try {
      await migratePostgres(client, schemaName);
      client.release();
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    return created;
  };
  let poolPromise: Promise<Pool> | undefined;
  const pool = () => {
    poolPromise ??= migrated();
    poolPromise.catch(() => {
      poolPromise = undefined;
    });
    return poolPromise;
  };
  // query_timeout per query also bounds queries on a pool the caller gave (pg reads it, its types omit it).
  const query = async <R extends QueryResultRow>(text: string, values: unknown[]) => {
    const config = { text, values, query_timeout: commandTimeoutMs };
    return (await pool()).query<R>(config);
  };
  const toRecord = (row: RunRow): RunRecord => {
    const source = { runId: row.id, key: `${table} id=${row.id}` };
    if (typeof row.record !== 'object' || row.record === null) {
      throw new StoredRunInvalidError({ ...source, problem: 'the "record" column is not a JSON object' });
    }
    return checkStoredRun(
      {
        ...row.record,
        version: row.version,
        createdAt: Number(row.created_at),
        updatedAt: Number(row.updated_at),
        ...(row.write_id !== null && { writeId: row.write_id }),
      },
      source,
    );
  };
  const readRun = async (id: string) => {
    const { rows } = await retrying(() =>
      query<RunRow>(`SELECT ${RUN_COLUMNS} FROM ${schema}.runs WHERE id = $1`, [id]),
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  };
  // An operation whose connection was lost (a terminated backend the pool had not noticed yet, a reset)
  // is sent again on a fresh connection, while its first attempt is younger than commandTimeoutMs: a
  // timeout is not retried, so the wait stays bounded. Only operations that are safe to repeat go
  // through here; a repeated write is recognised by its write id.
  const retrying = async <T>(operation: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await operation();
      } catch (error) {
        const late = Date.now() - started >= commandTimeoutMs;
        if (attempt >= ATTEMPTS || late || !isConnectionError(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
      }
    }
  };
  // A transaction holding the session's append lock, so two appends never interleave their items; `work`
  // answers `ROLLBACK` to end it without writing (then the transaction answers undefined).
  const inSessionTransaction = async <T>(
    sessionId: string,
    work: (run: TransactionQuery) => Promise<T | typeof ROLLBACK>,
  ): Promise<T | undefined> => {
    const client = await (await pool()).connect();
    // Between two queries of the transaction the client is idle but checked out: the pool does not
    // listen to it then, so a dropped connection would be an unhandled 'error'.
    client.on('error', warnConnection);
    const run: TransactionQuery = (text, values = []) => {
      const config = { text, values, query_timeout: commandTimeoutMs };
      return client.query(config);
    };
    let failure: Error | undefined;
    try {
      await run('BEGIN');
      await run('SELECT pg_advisory_xact_lock(hashtext($1))', [`svc-agents-session:${sessionId}`]);
      const result = await work(run);
      await run(result === ROLLBACK ? 'ROLLBACK' : 'COMMIT');
      return result === ROLLBACK ? undefined : result;
    } catch (error) {
      failure = error as Error;
      if (!isConnectionError(error)) await run('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      releaseClient(client, failure && isConnectionError(failure) ? failure : undefined, warnConnection);
    }
  };
  const appendItems = async (run: TransactionQuery, sessionId: string, items: readonly ChatMessage[]) => {
    if (items.length === 0) return;
    await run(
      `INSERT INTO ${schema}.session_items (session_id, item)
       SELECT $1, value FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY ORDER BY ordinality`,
      [sessionId, JSON.stringify(items)],
    );
  };
  // The stored createdAt when the run is at `version` by the write `writeId` (ours), else undefined.
  const createdAtIfOurs = async (id: string, version: number, writeId: string) => {
    const { rows } = await query<{ version: number; write_id: string | null; created_at: string }>(
      `SELECT version, write_id, created_at FROM ${schema}.runs WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    return row?.version === version && row.write_id === writeId ? Number(row.created_at) : undefined;
  };
  const prunes = async (olderThanMs: number) => {
    const { rowCount } = await retrying(() =>
      query(`DELETE FROM ${schema}.runs WHERE status IN ('completed', 'failed') AND updated_at < $1`, [
        Date.now() - olderThanMs,
      ]),
    );
    return { deleted: rowCount ?? 0 };
  };
  const sharedState = createPostgresSharedState({
    schema,
    query,
    retrying,
    signalChannel: signalChannelOf(schemaName),
  });
  const queryIndex = createPostgresRunIndex({
    schema,
    query,
    retrying,
    toRecord: toRecord as (row: never) => RunRecord,
    onWarning,
  });
  const signals = createPostgresSignals({ pool, schemaName, commandTimeoutMs, onWarning });
  const pruneOnWrite = createPruneOnWrite(async () => {
    await prunes(retentionMs);
    await sharedState.pruneExpired();
  }, onWarning);
  return guardStore(
    'postgresStore',
    {
      async createRun(input: RunRecordInput, writeOptions?: WriteRunOptions) {
        const record = stampRecord(input, 1, Date.now(), writeIdOf(writeOptions));
        const { writeId, ...stored } = record;
        const createdAt = await retrying(async () => {
          const { rowCount } = await query(...insertRunQuery(schema, record, stored));
          return rowCount === 1 ? record.createdAt : createdAtIfOurs(record.id, 1, writeId!);
        });
        if (createdAt === undefined) throw new RunConflictError({ runId: input.id });
        record.createdAt = createdAt;
        return record;
      },
      getRun: readRun,
      async updateRun(id, expectedVersion, input, writeOptions) {
        const record = stampRecord(input, expectedVersion + 1, 0, writeIdOf(writeOptions));
        const { writeId, ...stored } = record;
        const createdAt = await retrying(async () => {
          const { rows } = await query<{ created_at: string }>(
            ...updateRunQuery(schema, id, expectedVersion, record, stored),
          );
          return rows[0] ? Number(rows[0].created_at) : createdAtIfOurs(id, expectedVersion + 1, writeId!);
        });
        if (createdAt === undefined) throw new RunConflictError({ runId: id, expectedVersion });
        record.createdAt = createdAt;
        if (isFinished(record.status)) pruneOnWrite();
        return record;
      },
      async commitRun(id, expectedVersion, input, { sessionId, items }, writeOptions) {
        const record = stampRecord(input, expectedVersion + 1, 0, writeIdOf(writeOptions));
        const { writeId, ...stored } = record;
        // The run's write and its session append commit together or not at all; a repeat after a lost
        // reply finds the version moved on by its own write id and answers it.
        const createdAt = await retrying(() =>
          inSessionTransaction(sessionId, async (run) => {
            const { rows } = await run<{ created_at: string }>(
              ...updateRunQuery(schema, id, expectedVersion, record, stored),
            );
            if (!rows[0]) return ROLLBACK;
            await appendItems(run, sessionId, items);
            return Number(rows[0].created_at);
          }),
        ).then((committed) => committed ?? createdAtIfOurs(id, expectedVersion + 1, writeId!));
        if (createdAt === undefined) throw new RunConflictError({ runId: id, expectedVersion });
        record.createdAt = createdAt;
        if (isFinished(record.status)) pruneOnWrite();
        return record;
      },
      async listRuns({ status, limit = 100 }: ListRunsOptions = {}) {
        const { rows } = await retrying(() =>
          query<RunRow>(
            status === undefined
              ? `SELECT ${RUN_COLUMNS} FROM ${schema}.runs ORDER BY created_at DESC, id DESC LIMIT $1`
              : `SELECT ${RUN_COLUMNS} FROM ${schema}.runs WHERE status = $2
                 ORDER BY created_at DESC, id DESC LIMIT $1`,
            status === undefined ? [limit] : [limit, status],
          ),
        );
        const records: RunRecord[] = [];
        for (const row of rows) {
          try {
            records.push(toRecord(row));
          } catch (error) {
            if (!StoredRunInvalidError.isInstance(error)) throw error;
            onWarning(skippedRunWarning(error));
          }
        }
        return records;
      },
      async queryRuns(query?: RunQuery) {
        return queryIndex(normalizeRunQuery(query));
      },
      async deleteRun(id) {
        await retrying(() => query(`DELETE FROM ${schema}.runs WHERE id = $1`, [id]));
      },
      async pruneRuns({ olderThanMs = retentionMs }: PruneRunsOptions = {}) {
        const pruned = await prunes(olderThanMs);
        await retrying(() => sharedState.pruneExpired());
        return pruned;
      },
      async getItems(sessionId, limit) {
        const { rows } = await retrying(() =>
          query<{ item: ChatMessage }>(
            `SELECT item FROM (SELECT item, seq FROM ${schema}.session_items WHERE session_id = $1
             ORDER BY seq DESC LIMIT $2) last ORDER BY seq`,
            [sessionId, limit ?? null],
          ),
        );
        return rows.map((row) => row.item);
      },
      async addItems(sessionId, items, { idempotencyKey }: AddItemsOptions = {}) {
        await inSessionTransaction(sessionId, async (run) => {
          if (idempotencyKey !== undefined) {
            const { rowCount } = await run(
              `INSERT INTO ${schema}.session_keys (session_id, key) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
              [sessionId, idempotencyKey],
            );
            if (rowCount !== 1) return ROLLBACK;
          }
          await appendItems(run, sessionId, items);
        });
      },
      async popItem(sessionId) {
        const { rows } = await query<{ item: ChatMessage }>(
          `DELETE FROM ${schema}.session_items WHERE (session_id, seq) IN (
             SELECT session_id, seq FROM ${schema}.session_items WHERE session_id = $1
             ORDER BY seq DESC LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING item`,
          [sessionId],
        );
        return rows[0]?.item;
      },
      async clearSession(sessionId) {
        await retrying(() =>
          query(
            `WITH a AS (DELETE FROM ${schema}.session_items WHERE session_id = $1)
             DELETE FROM ${schema}.session_keys WHERE session_id = $1`,
            [sessionId],
          ),
        );
      },
      appendRunEvents: sharedState.appendRunEvents,
      [APPEND_AND_SIGNAL]: sharedState.appendRunEventsAndSignal,
      readRunEvents: sharedState.readRunEvents,
      getValue: sharedState.getValue,
      setValueIf: sharedState.setValueIf,
      signal: signals.signal,
      onSignal: signals.onSignal,
      async close() {
        await signals.close();
        poolPromise = undefined;
        if (ownsPool) await created?.end();
      },
    },
    isConnectionError,
  );
}

// What an `inSessionTransaction` work function answers to end the transaction without writing.
const ROLLBACK = Symbol('rollback');

/** One query of a transaction, with the store's query timeout. */
type TransactionQuery = <R extends QueryResultRow = QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<QueryResult<R>>;

// A client whose connection failed is destroyed rather than returned to the pool for the next caller (it
// keeps the listener: a dying connection may still emit 'error').
function releaseClient(
  client: PoolClient,
  failure: Error | undefined,
  listener: (error: Error) => void,
): void {
  if (!failure) client.removeListener('error', listener);
  client.release(failure);
}
