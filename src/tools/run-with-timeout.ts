/** How a guarded piece of work ended. */
export type GuardedResult<T> =
  | { status: 'ok'; value: T }
  | { status: 'error'; error: unknown }
  | { status: 'timeout'; error: Error }
  | { status: 'aborted'; error: unknown };

/**
 * Runs `run` with a signal that fires when `signal` aborts or `timeoutMs` passes, and stops waiting at that
 * moment even if the work ignores its signal (its late result or rejection is dropped).
 */
export async function runWithTimeout<T>(options: {
  run: (signal: AbortSignal) => T | Promise<T>;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  createTimeoutError: () => Error;
}): Promise<GuardedResult<T>> {
  const { run, timeoutMs, signal, createTimeoutError } = options;
  if (signal?.aborted) return { status: 'aborted', error: signal.reason };
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(createTimeoutError());
  }, timeoutMs);
  const onRunAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onRunAbort, { once: true });
  let onStop: (() => void) | undefined;
  const stopped = new Promise<'stopped'>((resolve) => {
    onStop = () => resolve('stopped');
    controller.signal.addEventListener('abort', onStop, { once: true });
  });
  try {
    const work = new Promise<T>((resolve) => resolve(run(controller.signal)));
    work.catch(() => {}); // the race below may stop waiting before a late rejection
    const first = await Promise.race([work.then((value) => ({ value })), stopped]);
    if (first !== 'stopped') return { status: 'ok', value: first.value };
  } catch (error) {
    if (!controller.signal.aborted) return { status: 'error', error };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onRunAbort);
    if (onStop) controller.signal.removeEventListener('abort', onStop);
  }
  return timedOut
    ? { status: 'timeout', error: controller.signal.reason as Error }
    : { status: 'aborted', error: controller.signal.reason };
}
