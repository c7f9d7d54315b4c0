import { addAbortListener, removeAbortListener } from '../core/abort-listeners.js';
import { APIUserAbortError } from '../core/errors.js';
import type { AttemptState } from './map-transport-error.js';

// setTimeout fires at once beyond 2^31-1 ms: such limits mean "no limit".
const maxTimerDelay = 2_147_483_647;

type Stop = (reason: Error) => void;

function onTimeout(guard: AttemptGuard): void {
  guard.timedOut = true;
  guard.stop(new Error(`attempt timed out after ${guard.timeout} ms`));
}

/**
 * What can stop one attempt early: its time limit and the caller's signal. `arm` wires both to the
 * attempt's stop function; the guard records which one fired (see {@link AttemptState}) so the thrown
 * error can be named after it. A class with a module-level timer callback, not closures: one per request.
 */
export class AttemptGuard implements AttemptState {
  userAborted = false;
  timedOut = false;
  readonly timeout: number;
  readonly #signal: AbortSignal | undefined;
  #stop: Stop | undefined;
  #onUserAbort: (() => void) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #released = false;

  constructor(timeout: number, signal: AbortSignal | undefined) {
    this.timeout = timeout;
    this.#signal = signal;
  }

  /** Starts the time limit and listens to the caller's signal; both end the attempt through `stop`. */
  arm(stop: Stop): void {
    this.#stop = stop;
    if (this.timeout <= maxTimerDelay) this.#timer = setTimeout(onTimeout, this.timeout, this);
    const signal = this.#signal;
    if (signal === undefined) return;
    if (signal.aborted) {
      this.abortByUser(signal.reason);
      return;
    }
    this.#onUserAbort = () => this.abortByUser(signal.reason);
    addAbortListener(signal, this.#onUserAbort);
  }

  /** Ends the attempt with `reason`. */
  stop(reason: Error): void {
    this.#stop?.(reason);
  }

  /** Ends the attempt as the caller's abort, with {@link APIUserAbortError}. */
  abortByUser(cause: unknown): void {
    this.userAborted = true;
    this.stop(new APIUserAbortError(undefined, { cause }));
  }

  /**
   * Starts the time limit over (a stream's body read something: the limit bounds the silence between
   * reads), or starts it again after `stopTimer`.
   */
  restartTimer(): void {
    // A stream that ended before its head was handed over must not get a new timer (it would hold it).
    if (this.#released) return;
    if (this.#timer !== undefined) this.#timer.refresh();
    else if (this.timeout <= maxTimerDelay) this.#timer = setTimeout(onTimeout, this.timeout, this);
  }

  /** Ends the time limit (while a slow consumer holds the stream back, the silence is not the server's). */
  stopTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Ends the time limit and forgets the caller's signal: the attempt is over. */
  release(): void {
    this.#released = true;
    this.stopTimer();
    if (this.#onUserAbort === undefined) return;
    if (this.#signal !== undefined) removeAbortListener(this.#signal, this.#onUserAbort);
    this.#onUserAbort = undefined;
  }
}
