import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError } from '../core/errors.js';
import type { Redact } from '../core/redact-secret.js';

const timeoutCodes = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Why an attempt's own AbortController fired, so the thrown error can be named after it. */
export interface AttemptState {
  userAborted: boolean;
  timedOut: boolean;
  timeout: number;
}

/**
 * Turns whatever an attempt threw into an {@link APIError}: the caller's abort wins, then our timeout,
 * then typed HTTP errors pass through, then undici's failures become connection or timeout errors.
 */
export function mapTransportError(
  error: unknown,
  state: AttemptState,
  redact: Redact,
  context = 'Connection error',
): APIError {
  if (state.userAborted) {
    return error instanceof APIUserAbortError ? error : new APIUserAbortError(undefined, { cause: error });
  }
  if (state.timedOut) return new APITimeoutError(state.timeout, { cause: error });
  if (error instanceof APIError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && timeoutCodes.has(code))
    return new APITimeoutError(undefined, { cause: error });
  const detail = error instanceof Error ? error.message : String(error);
  return new APIConnectionError(redact(`${context}: ${detail}`), { cause: error });
}
