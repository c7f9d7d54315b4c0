import { ConfigurationError, RuntimeConditionError } from '../core/errors.js';

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

/**
 * A file store could not write (disk full `ENOSPC`, over quota `EDQUOT`, file too large `EFBIG`, or a
 * short write): nothing was replaced, the previous record and event log are intact and no lock file is
 * left. Transient: the run is retried from its last checkpoint, which succeeds once space returns.
 */
export class StoreWriteError extends RuntimeConditionError {
  /** Always true: retrying once space returns succeeds. */
  readonly transient = true;
  /** The store, e.g. `fileStore`. */
  readonly store: string;
  /** The file that could not be written. */
  readonly path: string;
  /** The errno code (`ENOSPC`, `EDQUOT`, `EFBIG`), or `ESHORTWRITE` when the disk took fewer bytes than given. */
  readonly code: string;

  constructor(options: { store: string; path: string; code: string; cause?: unknown }) {
    super(
      `${options.store} could not write ${options.path} (${options.cause === undefined ? `${options.code}: the disk took fewer bytes than given` : describeCause(options.cause)}); the previous contents are kept`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.store = options.store;
    this.path = options.path;
    this.code = options.code;
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
  override readonly runId: string;
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

/**
 * A store operation was called with a bad argument (the caller's mistake, refused before any network call):
 * a `ConfigurationError` naming the field and the rule, and the operation.
 */
export class StoreInputError extends ConfigurationError {
  /** Not transient: the same call fails the same way. */
  readonly transient = false;
  /** The operation refused, e.g. `appendRunEvents`. */
  readonly operation: string;

  constructor(options: { operation: string; field: string; rule: string; message?: string }) {
    super({ field: options.field, rule: options.rule });
    // Said with the operation, which a store's caller knows the call by.
    this.message = options.message ?? `${options.operation}: ${options.field} ${options.rule}`;
    this.operation = options.operation;
  }
}

/**
 * `appendRunEvents` named a `firstId` past the run's next free id: a run's event ids are dense from 0,
 * so the events in between must be appended first (or the log expired since the last append).
 */
export class RunEventGapError extends StoreInputError {
  /** The run whose log was appended to. */
  override readonly runId: string;
  /** The id the append started at. */
  readonly firstId: number;
  /** The next free id of the stored log (its length). */
  readonly nextId: number;

  constructor(options: { runId: string; firstId: number; nextId: number }) {
    const rule = 'must not be past the next free id: event ids are dense from 0, with no gap';
    super({
      operation: 'appendRunEvents',
      field: 'firstId',
      rule,
      message: `appendRunEvents("${options.runId}"): firstId ${options.firstId} is past the next free id ${options.nextId}; event ids are dense from 0, with no gap`,
    });
    this.runId = options.runId;
    this.firstId = options.firstId;
    this.nextId = options.nextId;
  }
}

/** A signal's message is longer than a signal carries (4,000 bytes of UTF-8, the PostgreSQL NOTIFY budget). */
export class SignalTooLargeError extends StoreInputError {
  /** The channel it was sent to. */
  readonly channel: string;
  /** The message's size in bytes. */
  readonly bytes: number;
  /** The most a message may have, in bytes. */
  readonly limit: number;

  constructor(options: { channel: string; bytes: number; limit: number }) {
    super({
      operation: 'signal',
      field: 'message',
      rule: `must be at most ${options.limit} bytes`,
      message: `signal("${options.channel}"): message is ${options.bytes} bytes, at most ${options.limit} bytes are allowed; store the data and signal its key instead`,
    });
    this.channel = options.channel;
    this.bytes = options.bytes;
    this.limit = options.limit;
  }
}

/**
 * Redis or PostgreSQL could not be reached on the first connection within `connectTimeoutMs`: the
 * address and the cause (refused, timed out, host not found, refused login) are in the message. Transient:
 * once it is up, the next operation connects again. After a first success, a lost connection is retried
 * as before and reported by the operation that meets it.
 */
export class BackendUnreachableError extends RuntimeConditionError {
  /** Trying again later may succeed. */
  readonly transient = true;
  /** `Redis` or `PostgreSQL`. */
  readonly backend: 'Redis' | 'PostgreSQL';
  /** `host:port` (PostgreSQL: `host:port/database`), without credentials. */
  readonly address: string;
  /** How long the first connection was tried. */
  readonly timeoutMs: number;

  constructor(options: {
    backend: 'Redis' | 'PostgreSQL';
    address: string;
    timeoutMs: number;
    cause: unknown;
  }) {
    super(
      `${options.backend} at ${options.address} is unreachable: ${describeFailure(options.cause)} (tried for ${options.timeoutMs} ms)`,
      { cause: options.cause },
    );
    this.backend = options.backend;
    this.address = options.address;
    this.timeoutMs = options.timeoutMs;
  }
}

// "connection refused (ECONNREFUSED)": the cause in words first, then the driver's code or message.
function describeFailure(cause: unknown): string {
  if (cause === undefined) return 'no answer (timed out)';
  const code = (cause as { code?: unknown }).code;
  const message = cause instanceof Error ? cause.message : String(cause);
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ETIMEDOUT: 'connection timed out',
    ENOTFOUND: 'host not found',
    EHOSTUNREACH: 'host unreachable',
    ECONNRESET: 'connection reset',
  };
  if (typeof code === 'string' && words[code]) return `${words[code]} (${code})`;
  if (/timeout|timed out/i.test(message)) return `connection timed out (${message})`;
  return describeCause(cause);
}
