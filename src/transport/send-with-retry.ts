import { type Clock, systemClock } from '../core/clock.js';
import { APIError, APIUserAbortError } from '../core/errors.js';
import { computeRetryDelay } from './retry-timing.js';

/** A retry about to happen, as `onRetry` hears of it. */
export interface RetryInfo {
  /** Number of the attempt about to start (2 for the first retry). */
  attempt: number;
  /** Why the previous attempt failed. */
  error: APIError;
  /** Wait before it, in ms. */
  delayMs: number;
}

/** Options of `sendWithRetry`. */
export interface SendWithRetryOptions {
  maxRetries: number;
  signal?: AbortSignal | undefined;
  onRetry?: ((retry: RetryInfo) => void) | undefined;
  /** What the waits between attempts sleep on. @default systemClock */
  clock?: Clock | undefined;
}

/**
 * Runs `attempt` until it succeeds, retrying only errors whose `isRetryable` holds (connection errors,
 * timeouts, 408, 409, 429, 5xx) at most `maxRetries` times: one plain loop, attempts numbered from 1.
 * Waits between attempts follow {@link computeRetryDelay} (server `Retry-After` first) and end at once,
 * with {@link APIUserAbortError}, when `signal` aborts. An abort is never retried.
 */
export async function sendWithRetry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  { maxRetries, signal, onRetry, clock = systemClock }: SendWithRetryOptions,
): Promise<T> {
  for (let attemptNumber = 1; ; attemptNumber++) {
    if (signal?.aborted) throw new APIUserAbortError(undefined, { cause: signal.reason });
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      const retriesUsed = attemptNumber - 1;
      if (retriesUsed >= maxRetries || !isRetryable(error)) throw error;
      const delayMs = computeRetryDelay({
        retryIndex: retriesUsed,
        headers: error.headers,
        now: clock.now(),
      });
      onRetry?.({ attempt: attemptNumber + 1, error, delayMs });
      await clock.sleep(delayMs, signal);
    }
  }
}

function isRetryable(error: unknown): error is APIError {
  return error instanceof APIError && error.isRetryable;
}
