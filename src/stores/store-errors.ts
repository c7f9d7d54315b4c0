import { RuntimeConditionError } from '../transport/errors.js';

// A connection string in a driver's message keeps its host and drops any user:password.
function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const code = (cause as { code?: unknown }).code;
  const text = `${cause.name}${typeof code === 'string' ? ` ${code}` : ''}: ${cause.message}`;
  return text.replace(/\/\/[^/@\s]*@/g, '//');
}

/**
 * The store could not be reached or did not answer in time (connection lost or refused, reset, timeout,
 * closed pool): transient, so a run is retried from its last checkpoint. The driver's error is the `cause`.
 * A write that failed this way may still have been applied; `updateRun` with the same `writeId` tells.
 */
export class StoreUnavailableError extends RuntimeConditionError {
  /** Always true: retrying later may succeed. */
  readonly transient = true;
  /** The store, e.g. `redisStore`. */
  readonly store: string;
  /** The operation that failed, e.g. `updateRun`. */
  readonly operation: string;

  constructor(options: { store: string; operation: string; cause: unknown }) {
    super(
      `${options.store}.${options.operation} failed: the store is unreachable or did not answer (${describeCause(options.cause)})`,
      { cause: options.cause },
    );
    this.store = options.store;
    this.operation = options.operation;
  }
}

/** The store was closed with `close()`: it refuses every further operation and never reconnects. */
export class StoreClosedError extends RuntimeConditionError {
  /** Not transient: a closed store stays closed. */
  readonly transient = false;
  /** The store, e.g. `postgresStore`. */
  readonly store: string;
  /** The operation refused, e.g. `getRun`. */
  readonly operation: string;

  constructor(options: { store: string; operation: string }) {
    super(`${options.store}.${options.operation}: the store is closed`);
    this.store = options.store;
    this.operation = options.operation;
  }
}

/** A stored run cannot be read: truncated JSON, a missing field, a Redis hash without `version`. */
export class StoredRunInvalidError extends RuntimeConditionError {
  /** The run id. */
  readonly runId: string;
  /** Where it is stored: a Redis key, a file path, a PostgreSQL table. */
  readonly key: string;
  /** What is wrong with it. */
  readonly problem: string;

  constructor(options: { runId: string; key: string; problem: string }) {
    super(`Stored run "${options.runId}" (${options.key}) cannot be read: ${options.problem}`);
    this.runId = options.runId;
    this.key = options.key;
    this.problem = options.problem;
  }
}
