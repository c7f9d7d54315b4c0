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

// PostgreSQL SQLSTATEs of a lost server: admin/crash shutdown, cannot connect now, statement timeout.
const POSTGRES_CONNECTION_STATES = new Set(['57P01', '57P02', '57P03', '57014']);

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
export function isTransientInfrastructureError(error: unknown): boolean {
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
      if (CONNECTION_CODES.has(code) || POSTGRES_CONNECTION_STATES.has(code)) return true;
      // Class 08: connection exceptions.
      if (/^08[0-9A-Z]{3}$/.test(code)) return true;
    }
    if (name === 'Error' && typeof message === 'string' && UNCODED_DRIVER_ERRORS.has(message)) return true;
    if (current instanceof AggregateError && current.errors.some(isTransientInfrastructureError)) return true;
    current = cause;
  }
  return false;
}
