import { addAbortListener, removeAbortListener } from '../transport/abort-listeners.js';
/** How a guarded piece of work ended. */
export type GuardedResult<T> =
  | { status: 'ok'; value: T }
  | { status: 'error'; error: unknown }
  | { status: 'timeout'; error: Error }
  | { status: 'aborted'; error: unknown };

type Stopped = { status: 'timeout'; error: Error } | { status: 'aborted'; error: unknown };

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

/**
 * Runs `run` with a signal that fires when `signal` aborts or `timeoutMs` passes, and stops waiting at that
 * moment even if the work ignores its signal (its late result or rejection is dropped).
 *
 * Per call this is on the hot path of every agent turn, so it does only what is needed: the work's
 * signal is created on first read (`getSignal`; most tools never read it), work that returns a plain
 * value needs no timer at all, and otherwise one timer and one abort listener settle a single promise
 * instead of racing an extra `stopped` promise.
 */
export function runWithTimeout<T>(options: {
  run: (getSignal: () => AbortSignal) => T | Promise<T>;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  createTimeoutError: () => Error;
}): Promise<GuardedResult<T>> {
  const { run, timeoutMs, signal, createTimeoutError } = options;
  if (signal?.aborted) return Promise.resolve({ status: 'aborted', error: signal.reason });
  let controller: AbortController | undefined;
  let stopped: Stopped | undefined;
  const getSignal = (): AbortSignal => {
    if (!controller) {
      controller = new AbortController();
      if (stopped) controller.abort(stopped.error);
    }
    return controller.signal;
  };
  let work: T | Promise<T>;
  try {
    work = run(getSignal);
  } catch (error) {
    return Promise.resolve({ status: 'error', error });
  }
  if (!isPromiseLike(work)) return Promise.resolve({ status: 'ok', value: work });
  const pending = work;
  return new Promise<GuardedResult<T>>((resolve) => {
    let settled = false;
    const finish = (result: GuardedResult<T>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (signal !== undefined) removeAbortListener(signal, onRunAbort);
      resolve(result);
    };
    // The work learns of the stop through its signal; waiting for it ends at the same moment.
    const stop = (result: Stopped) => {
      if (settled) return;
      stopped = result;
      finish(result);
      controller?.abort(result.error);
    };
    const timer = setTimeout(() => stop({ status: 'timeout', error: createTimeoutError() }), timeoutMs);
    const onRunAbort = () => stop({ status: 'aborted', error: signal?.reason });
    if (signal !== undefined) addAbortListener(signal, onRunAbort);
    pending.then(
      (value) => finish({ status: 'ok', value }),
      (error: unknown) => finish({ status: 'error', error }),
    );
  });
}
