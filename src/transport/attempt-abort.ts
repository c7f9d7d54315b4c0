type Listener = () => void;

/**
 * The abort switch of one attempt, passed to undici as its `signal` (undici accepts an EventEmitter-like
 * `on`/`once`/`removeListener` object). Much cheaper per request than an AbortController and its
 * EventTarget: no event objects, no listener bookkeeping beyond an array, nothing when never aborted.
 */
export class AttemptAbort {
  aborted = false;
  reason: unknown = undefined;
  #listeners: Listener[] | undefined;

  on(_event: 'abort', listener: Listener): this {
    if (this.#listeners === undefined) this.#listeners = [listener];
    else this.#listeners.push(listener);
    return this;
  }

  once(event: 'abort', listener: Listener): this {
    return this.on(event, listener);
  }

  removeListener(_event: 'abort', listener: Listener): this {
    const listeners = this.#listeners;
    const index = listeners === undefined ? -1 : listeners.indexOf(listener);
    if (index !== -1) listeners?.splice(index, 1);
    return this;
  }

  off(event: 'abort', listener: Listener): this {
    return this.removeListener(event, listener);
  }

  /** Aborts once: later calls are ignored; each listener runs once. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener();
  }
}
