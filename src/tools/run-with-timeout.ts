import { addAbortListener, removeAbortListener } from '../core/abort-listeners.js';
import { isPromiseLike } from './utils.js';

/** How a guarded piece of work ended. */
export type GuardedResult<T> =
  | { status: 'ok'; value: T }
  | { status: 'error'; error: unknown }
  | { status: 'timeout'; error: Error }
  | { status: 'aborted'; error: unknown };

type Stopped = { status: 'timeout'; error: Error } | { status: 'aborted'; error: unknown };

/** What guarded work sees of its guard: a signal that fires when the work is stopped. */
export interface WorkSignal {
  /** Fires on the timeout or the caller's abort; created on first read (most tools never read it). */
  readonly signal: AbortSignal;
}

function onTimeout(run: { stop(result: Stopped): void; createTimeoutError(): Error }): void {
  run.stop({ status: 'timeout', error: run.createTimeoutError() });
}

/**
 * One guarded piece of work: its timer, its subscription to the caller's signal and its lazily created
 * AbortController live in one object (with prototype methods) instead of a handful of closures per call,
 * because every tool call of every turn passes here (bench/results/2026-11-22.md, row 2a28a32).
 */
class GuardedRun<T> implements WorkSignal {
  readonly createTimeoutError: () => Error;
  #controller: AbortController | undefined;
  #stopped: Stopped | undefined;
  #settled = false;
  #resolve: ((result: GuardedResult<T>) => void) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #callerSignal: AbortSignal | undefined;
  #onCallerAbort: (() => void) | undefined;

  constructor(createTimeoutError: () => Error) {
    this.createTimeoutError = createTimeoutError;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#stopped !== undefined) this.#controller.abort(this.#stopped.error);
    }
    return this.#controller.signal;
  }

  /** Waits for `pending`, but no longer than `timeoutMs` or the caller's abort. */
  guard(
    pending: PromiseLike<T>,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<GuardedResult<T>> {
    return new Promise<GuardedResult<T>>((resolve) => {
      this.#resolve = resolve;
      pending.then(
        (value) => this.#finish({ status: 'ok', value }),
        (error: unknown) => this.#finish({ status: 'error', error }),
      );
      // The timer and the abort subscription are armed one microtask later, behind the reaction above:
      // most tools are `async` functions that return without waiting for anything, so their promise is
      // settled already and the reaction runs first; such a call then never creates, inserts and clears a
      // timer nor subscribes to the signal (a setTimeout/clearTimeout pair per tool call was one of the
      // larger costs of a tool turn, bench/results/2026-11-26-floor.md). Work that does wait gets its
      // limit a microtask later, which no millisecond timeout can tell apart.
      const abortedBefore = signal?.aborted === true;
      queueMicrotask(() => this.#arm(timeoutMs, signal, abortedBefore));
    });
  }

  #arm(timeoutMs: number, signal: AbortSignal | undefined, abortedBefore: boolean): void {
    if (this.#settled) return;
    this.#timer = setTimeout(onTimeout, timeoutMs, this);
    if (signal === undefined) return;
    // An abort in the microtask just passed is one a listener subscribed at once would have heard; one
    // from before `guard` (during the work's synchronous start) was not heard then either: kept so.
    if (signal.aborted) {
      if (!abortedBefore) this.stop({ status: 'aborted', error: signal.reason });
      return;
    }
    this.#callerSignal = signal;
    this.#onCallerAbort = () => this.stop({ status: 'aborted', error: signal.reason });
    addAbortListener(signal, this.#onCallerAbort);
  }

  /** Ends the wait now; the work learns of it through its signal. Its late result is dropped. */
  stop(result: Stopped): void {
    if (this.#settled) return;
    this.#stopped = result;
    this.#finish(result);
    this.#controller?.abort(result.error);
  }

  #finish(result: GuardedResult<T>): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    if (this.#callerSignal !== undefined && this.#onCallerAbort !== undefined) {
      removeAbortListener(this.#callerSignal, this.#onCallerAbort);
    }
    this.#resolve?.(result);
  }
}

/**
 * Runs `run` with a signal that fires when `signal` aborts or `timeoutMs` passes, and stops waiting at that
 * moment even if the work ignores its signal (its late result or rejection is dropped). Work that returns
 * a plain value needs no timer at all; the work's signal is created only if it reads it.
 */
export function runWithTimeout<T>(options: {
  run: (guard: WorkSignal) => T | Promise<T>;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  createTimeoutError: () => Error;
}): Promise<GuardedResult<T>> {
  const { run, timeoutMs, signal, createTimeoutError } = options;
  if (signal?.aborted) return Promise.resolve({ status: 'aborted', error: signal.reason });
  const guarded = new GuardedRun<T>(createTimeoutError);
  let work: T | Promise<T>;
  try {
    work = run(guarded);
  } catch (error) {
    return Promise.resolve({ status: 'error', error });
  }
  if (!isPromiseLike(work)) return Promise.resolve({ status: 'ok', value: work });
  return guarded.guard(work, timeoutMs, signal);
}
