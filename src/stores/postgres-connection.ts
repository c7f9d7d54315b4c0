import type { Pool, PoolClient, PoolConfig, QueryResult, QueryResultRow } from 'pg';
import { loadOptional } from '../core/load-module.js';
import { checkPostgresReachable } from './first-connect.js';
import { isProgrammingError } from './guard-store.js';
import { isTransientSqlState } from './is-transient.js';
import { migratePostgres } from './postgres-migrations.js';

/** What `PostgresConnection` needs from `postgresStore`'s options. */
export interface PostgresConnectionOptions {
  /** `postgres://user@host:5432/db`. */
  connectionString: string | undefined;
  /** pg pool options. */
  config: PoolConfig | undefined;
  /** A pool the caller owns (never ended here, nor listened to). */
  pool: Pool | undefined;
  /** The schema migrated on first use. */
  schemaName: string;
  /** Each query's timeout, and the wait for a connection of a pool made here. */
  commandTimeoutMs: number;
  /** The bound on the first connection. */
  connectTimeoutMs: number;
  /** Receives the first lost idle connection. */
  onWarning: (message: string) => void;
}

/** One query of a transaction, with the store's query timeout. */
export type TransactionQuery = <R extends QueryResultRow = QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<QueryResult<R>>;

/** What an `inSessionTransaction` work function answers to end the transaction without writing. */
export const ROLLBACK = Symbol('rollback');

// Attempts at an operation that is safe to repeat, when its connection is lost.
const ATTEMPTS = 3;

/**
 * A pg DatabaseError carries a SQLSTATE `code` and a `severity`: PostgreSQL answered. Anything else the
 * driver throws (reset, refused, "Connection terminated", "Query read timeout", a pool connect timeout)
 * means no answer.
 */
export function isPostgresConnectionError(error: unknown): boolean {
  if (!(error instanceof Error) || isProgrammingError(error)) return false;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  if (typeof severity === 'string' && typeof code === 'string') return isTransientSqlState(code);
  return true;
}

/**
 * `postgresStore`'s pool: made once (or the caller's taken), the schema migrated on first use and again on
 * the next operation if that failed; queries with the store's timeout, repeated on a fresh connection when
 * theirs was lost, and transactions holding a session's lock.
 */
export class PostgresConnection {
  readonly #options: PostgresConnectionOptions;
  #created: Pool | undefined;
  #poolPromise: Promise<Pool> | undefined;
  #everConnected = false;
  #warnedAboutConnection = false;

  constructor(options: PostgresConnectionOptions) {
    this.#options = options;
    this.#created = options.pool;
  }

  /** The migrated pool, connecting first when there is none. */
  pool(): Promise<Pool> {
    this.#poolPromise ??= this.#migrated();
    this.#poolPromise.catch(() => {
      this.#poolPromise = undefined;
    });
    return this.#poolPromise;
  }

  /** One query; query_timeout per query also bounds queries on a pool the caller gave (pg reads it, its types omit it). */
  async query<R extends QueryResultRow>(text: string, values: unknown[]): Promise<QueryResult<R>> {
    const config = { text, values, query_timeout: this.#options.commandTimeoutMs };
    return (await this.pool()).query<R>(config);
  }

  /**
   * Runs `operation`, again on a fresh connection when its connection was lost (a terminated backend the
   * pool had not noticed yet, a reset), while its first attempt is younger than commandTimeoutMs: a
   * timeout is not retried, so the wait stays bounded. Only operations that are safe to repeat go
   * through here; a repeated write is recognised by its write id.
   */
  async retrying<T>(operation: () => Promise<T>): Promise<T> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await operation();
      } catch (error) {
        const late = Date.now() - started >= this.#options.commandTimeoutMs;
        if (attempt >= ATTEMPTS || late || !isPostgresConnectionError(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
      }
    }
  }

  /**
   * A transaction holding the session's append lock, so two appends never interleave their items; `work`
   * answers `ROLLBACK` to end it without writing (then the transaction answers undefined).
   */
  async inSessionTransaction<T>(
    sessionId: string,
    work: (run: TransactionQuery) => Promise<T | typeof ROLLBACK>,
  ): Promise<T | undefined> {
    const client = await (await this.pool()).connect();
    const warnConnection = this.#warnConnection;
    // Between two queries of the transaction the client is idle but checked out: the pool does not
    // listen to it then, so a dropped connection would be an unhandled 'error'.
    client.on('error', warnConnection);
    const run: TransactionQuery = (text, values = []) => {
      const config = { text, values, query_timeout: this.#options.commandTimeoutMs };
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
      if (!isPostgresConnectionError(error)) await run('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      releaseClient(
        client,
        failure && isPostgresConnectionError(failure) ? failure : undefined,
        warnConnection,
      );
    }
  }

  /** Forgets the migrated pool and ends it when it was made here. */
  async close(): Promise<void> {
    this.#poolPromise = undefined;
    if (this.#options.pool === undefined) await this.#created?.end();
  }

  readonly #warnConnection = (error: Error): void => {
    if (this.#warnedAboutConnection) return;
    this.#warnedAboutConnection = true;
    this.#options.onWarning(
      `postgresStore: an idle connection was lost and will be replaced (${error.message})`,
    );
  };

  async #createPool(): Promise<Pool> {
    const { commandTimeoutMs, config, connectionString } = this.#options;
    const pg = (await loadOptional('pg', () => import('pg'), 'postgresStore')).default;
    const made = new pg.Pool({
      connectionTimeoutMillis: commandTimeoutMs,
      query_timeout: commandTimeoutMs,
      statement_timeout: commandTimeoutMs,
      keepAlive: true,
      ...config,
      ...(connectionString && { connectionString }),
    });
    // An idle client that loses its connection (restart, failover, pg_terminate_backend) is removed by
    // the pool, which then emits 'error': without a listener that would crash the process.
    made.on('error', this.#warnConnection);
    return made;
  }

  async #migrated(): Promise<Pool> {
    const { pool, config, connectionString, connectTimeoutMs, schemaName } = this.#options;
    // Bounded once: a store that never connected gives up within connectTimeoutMs, naming the address.
    if (pool === undefined && !this.#everConnected) {
      await checkPostgresReachable(
        { ...config, ...(connectionString && { connectionString }) },
        connectTimeoutMs,
      );
    }
    this.#everConnected = true;
    this.#created ??= await this.#createPool();
    const client = await this.#created.connect();
    try {
      await migratePostgres(client, schemaName);
      client.release();
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    return this.#created;
  }
}

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
