// Connection-level errno codes: the peer or the network went away, not the request.
const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTCONN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
]);

// The one table of what a connection failing for a moment looks like, read by the stores (to wrap a driver
// error in a transient StoreUnavailableError), the queue and the workers (to retry a run from its
// checkpoint instead of failing it).

/**
 * True for a PostgreSQL SQLSTATE of a connection failing for a moment: class 08 (connection exceptions),
 * a terminated backend (57P01-57P03), a statement cancelled by statement_timeout (57014) and too many
 * connections (53300).
 */
export function isTransientSqlState(code: string): boolean {
  return /^(08[0-9A-Z]{3}|57P0[123]|57014|53300)$/.test(code);
}

// Driver errors that carry neither a name nor a code of their own (pg's lost connection and read
// timeout, its pool's connect timeout, ioredis' command timeout): their fixed texts are all there is
// to recognise them by until the store wraps them in a transient error.
const UNCODED_DRIVER_ERRORS = new Set([
  'Connection terminated unexpectedly',
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'Command timed out',
]);

/**
 * True when `error` is a store or queue connection failing for a moment (a reset, a refused or timed-out
 * connection, a lost PostgreSQL backend, ioredis giving up a command across a reconnect): the run is
 * retried from its checkpoint, never failed for good. An error that says `transient` (true or false)
 * decides by itself; otherwise its name and code are read, then its cause's.
 */
export function isTransient(error: unknown): boolean {
  for (let depth = 0, current = error; depth < 5; depth++) {
    if (typeof current !== 'object' || current === null) return false;
    const { transient, name, code, message, cause } = current as {
      transient?: unknown;
      name?: unknown;
      code?: unknown;
      message?: unknown;
      cause?: unknown;
    };
    if (typeof transient === 'boolean') return transient;
    if (name === 'MaxRetriesPerRequestError' || name === 'TimeoutError') return true;
    if (typeof code === 'string') {
      if (CONNECTION_CODES.has(code) || isTransientSqlState(code)) return true;
    }
    if (name === 'Error' && typeof message === 'string' && UNCODED_DRIVER_ERRORS.has(message)) return true;
    if (current instanceof AggregateError && current.errors.some(isTransient)) return true;
    current = cause;
  }
  return false;
}

/** The former name of {@link isTransient}. @deprecated use `isTransient` */
export const isTransientInfrastructureError = isTransient;
