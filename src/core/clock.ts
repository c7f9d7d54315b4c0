import { APIUserAbortError } from './errors.js';

/**
 * Where time comes from for the waits the library decides (retries' backoff, `Retry-After`): the system
 * clock by default; a test passes one that records each wait and returns at once instead of sleeping.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Waits `ms`; rejects at once with `APIUserAbortError` when `signal` aborts (before or during the wait). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `Date.now` and a timer. */
export const systemClock: Clock = { now: () => Date.now(), sleep: abortableDelay };

/** Waits `ms`; rejects at once with {@link APIUserAbortError} when `signal` aborts (before or during the wait). */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new APIUserAbortError(undefined, { cause: signal.reason }));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError(undefined, { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
