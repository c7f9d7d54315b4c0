import type { Pool, PoolConfig, QueryResult, QueryResultRow } from 'pg';
import type { RunQuery, RunQueryPage } from '../agent/durable/run-query.js';
import type {
  AddItemsOptions,
  ListRunsOptions,
  PruneRunsOptions,
  RunRecord,
  RunRecordInput,
  SessionAppend,
  WriteRunOptions,
} from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors.js';
import type { ChatMessage } from '../api/types/chat.js';
import { defaults } from '../core/defaults.js';
import { type GuardedStore, guardStore } from './guard-store.js';
import {
  isPostgresConnectionError,
  PostgresConnection,
  ROLLBACK,
  type TransactionQuery,
} from './postgres-connection.js';
import { quoteIdentifier } from './postgres-migrations.js';
import { createPostgresRunIndex, insertRunQuery, updateRunQuery } from './postgres-run-index.js';
import { createPostgresSharedState } from './postgres-shared-state.js';
import { createPostgresSignals, signalChannelOf } from './postgres-signals.js';
import { APPEND_AND_SIGNAL, type AppendAndSignal } from './run-events-signal.js';
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
  return guardStore('postgresStore', new PostgresRunStore(options), isPostgresConnectionError);
}

/** `postgresStore`'s operations: runs and sessions in tables, each write one statement or one transaction. */
class PostgresRunStore implements GuardedStore {
  readonly #schema: string;
  readonly #table: string;
  readonly #retentionMs: number;
  readonly #onWarning: (message: string) => void;
  readonly #connection: PostgresConnection;
  readonly #sharedState: ReturnType<typeof createPostgresSharedState>;
  readonly #queryIndex: ReturnType<typeof createPostgresRunIndex>;
  readonly #signals: ReturnType<typeof createPostgresSignals>;
  readonly #pruneOnWrite: () => void;
  readonly appendRunEvents: GuardedStore['appendRunEvents'];
  readonly [APPEND_AND_SIGNAL]: AppendAndSignal;
  readonly readRunEvents: GuardedStore['readRunEvents'];
  readonly getValue: GuardedStore['getValue'];
  readonly setValueIf: GuardedStore['setValueIf'];
  readonly signal: GuardedStore['signal'];
  readonly onSignal: GuardedStore['onSignal'];

  constructor(options: PostgresStoreOptions) {
    const { commandTimeoutMs, connectTimeoutMs, retentionMs, onWarning } = resolveStoreOptions(options);
    const schemaName = options.schema ?? defaults.postgresSchema;
    this.#schema = quoteIdentifier(schemaName);
    this.#table = `${schemaName}.runs`;
    this.#retentionMs = retentionMs;
    this.#onWarning = onWarning;
    const connection = new PostgresConnection({
      connectionString: options.connectionString,
      config: options.config,
      pool: options.pool,
      schemaName,
      commandTimeoutMs,
      connectTimeoutMs,
      onWarning,
    });
    this.#connection = connection;
    const query = connection.query.bind(connection);
    const retrying = connection.retrying.bind(connection);
    this.#sharedState = createPostgresSharedState({
      schema: this.#schema,
      query,
      retrying,
      signalChannel: signalChannelOf(schemaName),
    });
    this.#queryIndex = createPostgresRunIndex({
      schema: this.#schema,
      query,
      retrying,
      toRecord: ((row: RunRow) => this.#toRecord(row)) as (row: never) => RunRecord,
      onWarning,
    });
    this.#signals = createPostgresSignals({
      pool: () => connection.pool(),
      schemaName,
      commandTimeoutMs,
      onWarning,
    });
    this.#pruneOnWrite = createPruneOnWrite(async () => {
      await this.#prune(retentionMs);
      await this.#sharedState.pruneExpired();
    }, onWarning);
    this.appendRunEvents = this.#sharedState.appendRunEvents;
    this[APPEND_AND_SIGNAL] = this.#sharedState.appendRunEventsAndSignal;
    this.readRunEvents = this.#sharedState.readRunEvents;
    this.getValue = this.#sharedState.getValue;
    this.setValueIf = this.#sharedState.setValueIf;
    this.signal = this.#signals.signal;
    this.onSignal = this.#signals.onSignal;
  }

  async createRun(input: RunRecordInput, writeOptions?: WriteRunOptions): Promise<RunRecord> {
    const record = stampRecord(input, 1, Date.now(), writeIdOf(writeOptions));
    const { writeId, ...stored } = record;
    const createdAt = await this.#connection.retrying(async () => {
      const { rowCount } = await this.#query(...insertRunQuery(this.#schema, record, stored));
      return rowCount === 1 ? record.createdAt : this.#createdAtIfOurs(record.id, 1, writeId!);
    });
    if (createdAt === undefined) throw new RunConflictError({ runId: input.id });
    record.createdAt = createdAt;
    return record;
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const { rows } = await this.#connection.retrying(() =>
      this.#query<RunRow>(`SELECT ${RUN_COLUMNS} FROM ${this.#schema}.runs WHERE id = $1`, [id]),
    );
    return rows[0] ? this.#toRecord(rows[0]) : undefined;
  }

  async updateRun(
    id: string,
    expectedVersion: number,
    input: RunRecordInput,
    writeOptions?: WriteRunOptions,
  ): Promise<RunRecord> {
    const record = stampRecord(input, expectedVersion + 1, 0, writeIdOf(writeOptions));
    const { writeId, ...stored } = record;
    const createdAt = await this.#connection.retrying(async () => {
      const { rows } = await this.#query<{ created_at: string }>(
        ...updateRunQuery(this.#schema, id, expectedVersion, record, stored),
      );
      return rows[0] ? Number(rows[0].created_at) : this.#createdAtIfOurs(id, expectedVersion + 1, writeId!);
    });
    if (createdAt === undefined) throw new RunConflictError({ runId: id, expectedVersion });
    record.createdAt = createdAt;
    if (isFinished(record.status)) this.#pruneOnWrite();
    return record;
  }

  async commitRun(
    id: string,
    expectedVersion: number,
    input: RunRecordInput,
    { sessionId, items }: SessionAppend,
    writeOptions?: WriteRunOptions,
  ): Promise<RunRecord> {
    const record = stampRecord(input, expectedVersion + 1, 0, writeIdOf(writeOptions));
    const { writeId, ...stored } = record;
    // The run's write and its session append commit together or not at all; a repeat after a lost
    // reply finds the version moved on by its own write id and answers it.
    const createdAt = await this.#connection
      .retrying(() =>
        this.#connection.inSessionTransaction(sessionId, async (run) => {
          const { rows } = await run<{ created_at: string }>(
            ...updateRunQuery(this.#schema, id, expectedVersion, record, stored),
          );
          if (!rows[0]) return ROLLBACK;
          await this.#appendItems(run, sessionId, items);
          return Number(rows[0].created_at);
        }),
      )
      .then((committed) => committed ?? this.#createdAtIfOurs(id, expectedVersion + 1, writeId!));
    if (createdAt === undefined) throw new RunConflictError({ runId: id, expectedVersion });
    record.createdAt = createdAt;
    if (isFinished(record.status)) this.#pruneOnWrite();
    return record;
  }

  async listRuns({ status, limit = 100 }: ListRunsOptions = {}): Promise<RunRecord[]> {
    const schema = this.#schema;
    const { rows } = await this.#connection.retrying(() =>
      this.#query<RunRow>(
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
        records.push(this.#toRecord(row));
      } catch (error) {
        if (!StoredRunInvalidError.isInstance(error)) throw error;
        this.#onWarning(skippedRunWarning(error));
      }
    }
    return records;
  }

  queryRuns(query?: RunQuery): Promise<RunQueryPage> {
    return this.#queryIndex(normalizeRunQuery(query));
  }

  async deleteRun(id: string): Promise<void> {
    await this.#connection.retrying(() =>
      this.#query(`DELETE FROM ${this.#schema}.runs WHERE id = $1`, [id]),
    );
  }

  async pruneRuns({ olderThanMs = this.#retentionMs }: PruneRunsOptions = {}): Promise<{ deleted: number }> {
    const pruned = await this.#prune(olderThanMs);
    await this.#connection.retrying(() => this.#sharedState.pruneExpired());
    return pruned;
  }

  async getItems(sessionId: string, limit?: number): Promise<ChatMessage[]> {
    const { rows } = await this.#connection.retrying(() =>
      this.#query<{ item: ChatMessage }>(
        `SELECT item FROM (SELECT item, seq FROM ${this.#schema}.session_items WHERE session_id = $1
         ORDER BY seq DESC LIMIT $2) last ORDER BY seq`,
        [sessionId, limit ?? null],
      ),
    );
    return rows.map((row) => row.item);
  }

  async addItems(
    sessionId: string,
    items: readonly ChatMessage[],
    { idempotencyKey }: AddItemsOptions = {},
  ): Promise<void> {
    await this.#connection.inSessionTransaction(sessionId, async (run) => {
      if (idempotencyKey !== undefined) {
        const { rowCount } = await run(
          `INSERT INTO ${this.#schema}.session_keys (session_id, key) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
          [sessionId, idempotencyKey],
        );
        if (rowCount !== 1) return ROLLBACK;
      }
      await this.#appendItems(run, sessionId, items);
    });
  }

  async popItem(sessionId: string): Promise<ChatMessage | undefined> {
    const schema = this.#schema;
    const { rows } = await this.#query<{ item: ChatMessage }>(
      `DELETE FROM ${schema}.session_items WHERE (session_id, seq) IN (
         SELECT session_id, seq FROM ${schema}.session_items WHERE session_id = $1
         ORDER BY seq DESC LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING item`,
      [sessionId],
    );
    return rows[0]?.item;
  }

  async clearSession(sessionId: string): Promise<void> {
    const schema = this.#schema;
    await this.#connection.retrying(() =>
      this.#query(
        `WITH a AS (DELETE FROM ${schema}.session_items WHERE session_id = $1)
         DELETE FROM ${schema}.session_keys WHERE session_id = $1`,
        [sessionId],
      ),
    );
  }

  async close(): Promise<void> {
    await this.#signals.close();
    await this.#connection.close();
  }

  #query<R extends QueryResultRow>(text: string, values: unknown[]): Promise<QueryResult<R>> {
    return this.#connection.query<R>(text, values);
  }

  #toRecord(row: RunRow): RunRecord {
    const source = { runId: row.id, key: `${this.#table} id=${row.id}` };
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
  }

  async #appendItems(run: TransactionQuery, sessionId: string, items: readonly ChatMessage[]): Promise<void> {
    if (items.length === 0) return;
    await run(
      `INSERT INTO ${this.#schema}.session_items (session_id, item)
       SELECT $1, value FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY ORDER BY ordinality`,
      [sessionId, JSON.stringify(items)],
    );
  }

  // The stored createdAt when the run is at `version` by the write `writeId` (ours), else undefined.
  async #createdAtIfOurs(id: string, version: number, writeId: string): Promise<number | undefined> {
    const { rows } = await this.#query<{ version: number; write_id: string | null; created_at: string }>(
      `SELECT version, write_id, created_at FROM ${this.#schema}.runs WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    return row?.version === version && row.write_id === writeId ? Number(row.created_at) : undefined;
  }

  async #prune(olderThanMs: number): Promise<{ deleted: number }> {
    const { rowCount } = await this.#connection.retrying(() =>
      this.#query(
        `DELETE FROM ${this.#schema}.runs WHERE status IN ('completed', 'failed') AND updated_at < $1`,
        [Date.now() - olderThanMs],
      ),
    );
    return { deleted: rowCount ?? 0 };
  }
}
