import { APIError, APIUserAbortError } from './errors.js';
import { computeRetryDelay } from './retry-timing.js';
import { abortableDelay, loadOnce } from './utils.js';

// p-retry is loaded on the first retry, not when svc-agents is imported: a cold import stays cheap.
const loadPRetry = loadOnce(() => import('p-retry'));

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
}

/**
 * Runs `attempt` until it succeeds, retrying only errors whose `isRetryable` holds (connection errors,
 * timeouts, 408, 409, 429, 5xx) at most `maxRetries` times. Waits between attempts follow
 * {@link computeRetryDelay} (server `Retry-After` first) and end at once, with {@link APIUserAbortError},
 * when `signal` aborts. The first attempt runs directly; only a retryable failure loads and enters p-retry.
 */
export function sendWithRetry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  { maxRetries, signal, onRetry }: SendWithRetryOptions,
): Promise<T> {
  if (signal?.aborted) return Promise.reject(new APIUserAbortError(undefined, { cause: signal.reason }));
  return attempt(1).catch((error: unknown) => {
    if (maxRetries <= 0 || !isRetryable(error)) throw error;
    return retryAfterFirstFailure(error, attempt, { maxRetries, signal, onRetry });
  });
}

function isRetryable(error: unknown): error is APIError {
  return error instanceof APIError && error.isRetryable;
}

async function retryAfterFirstFailure<T>(
  first: APIError,
  attempt: (attemptNumber: number) => Promise<T>,
  { maxRetries, signal, onRetry }: SendWithRetryOptions,
): Promise<T> {
  const firstDelay = computeRetryDelay({ retryIndex: 0, headers: first.headers });
  onRetry?.({ attempt: 2, error: first, delayMs: firstDelay });
  await abortableDelay(firstDelay, signal);
  const { default: pRetry } = await loadPRetry();
  if (signal?.aborted) throw new APIUserAbortError(undefined, { cause: signal.reason });
  return pRetry((attemptNumber) => attempt(attemptNumber + 1), {
    retries: maxRetries - 1,
    // p-retry's own wait is off: ours honours Retry-After and is abortable with our error type.
    minTimeout: 0,
    shouldRetry: async ({ error, retriesConsumed }) => {
      if (!isRetryable(error)) return false;
      const delayMs = computeRetryDelay({ retryIndex: retriesConsumed + 1, headers: error.headers });
      onRetry?.({ attempt: retriesConsumed + 3, error, delayMs });
      await abortableDelay(delayMs, signal);
      return true;
    },
  });
}
