/** Options of an {@link AsyncQueue}. */
export interface AsyncQueueOptions {
  /**
   * Buffered values at which `onPause` is called (the producer should stop); `onResume` follows once the
   * consumer has brought the buffer down to half of it. @default Infinity (no backpressure)
   */
  highWaterMark?: number | undefined;
  /** The buffer reached `highWaterMark`. */
  onPause?: (() => void) | undefined;
  /** The consumer drained a paused buffer: the producer may go on. */
  onResume?: (() => void) | undefined;
  /** The consumer stopped before the end (`return()`, a `break` out of `for await`); awaited by `return()`. */
  onReturn?: (() => void | Promise<void>) | undefined;
  /** Turns the producer's failure into the error the consumer sees, when it reads it (not when it happens). */
  mapError?: ((error: unknown) => unknown) | undefined;
}

const doneResult: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

interface Waiter<T> {
  /** A `readBatch()` (all buffered values) rather than a `next()` (one value). */
  batch: boolean;
  resolve(result: IteratorResult<T, undefined> | T[] | undefined): void;
  reject(error: unknown): void;
}

/**
 * The one push/pull queue behind every stream of svc-agents (SSE events, agent events), in the spirit of
 * openai-node's `EventStream` iterator: the producer pushes values and ends or fails it; the consumer
 * iterates once, value by value (`for await`) or one buffered batch per await (`readBatch`). A value
 * pushed while the consumer waits is handed to it directly. After a failure the buffered values are read
 * first, then the error is thrown once, then the iteration is done, like a generator that threw.
 */
export class AsyncQueue<T> implements AsyncIterableIterator<T, undefined> {
  #buffer: T[] = [];
  /** Index of the next value of `#buffer` to read (values are not shifted out one by one). */
  #head = 0;
  #waiter: Waiter<T> | undefined;
  /** The producer is done: `end()` or `fail()` was called. */
  #ended = false;
  /** The consumer is done: `return()`, or the end (or failure) was read. */
  #closed = false;
  #failure: { error: unknown } | undefined;
  #paused = false;
  readonly #options: AsyncQueueOptions;
  readonly #highWaterMark: number;

  constructor(options: AsyncQueueOptions = {}) {
    this.#options = options;
    this.#highWaterMark = options.highWaterMark ?? Number.POSITIVE_INFINITY;
  }

  /** Values buffered and not yet read. */
  get size(): number {
    return this.#buffer.length - this.#head;
  }

  /** True once the producer called `end()` or `fail()`. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Adds one value (ignored after `end()`, `fail()` or the consumer's `return()`). */
  push(value: T): void {
    if (this.#ended || this.#closed) return;
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      waiter.resolve(waiter.batch ? [value] : { done: false, value });
      return;
    }
    this.#buffer.push(value);
    this.#checkPause();
  }

  /** Adds several values at once; the array is taken over, not copied, when nothing else is buffered. */
  pushAll(values: T[]): void {
    if (this.#ended || this.#closed || values.length === 0) return;
    const waiter = this.#waiter;
    if (waiter?.batch) {
      this.#waiter = undefined;
      waiter.resolve(values);
      return;
    }
    if (this.size === 0) {
      this.#buffer = values;
      this.#head = 0;
    } else {
      for (const value of values) this.#buffer.push(value);
    }
    if (waiter !== undefined) {
      this.#waiter = undefined;
      waiter.resolve({ done: false, value: this.#take() });
    }
    this.#checkPause();
  }

  /** No more values: the consumer reads what is buffered, then the end. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#settleWaiter();
  }

  /** Ends the queue with `error`: the consumer reads what is buffered, then `error` (see `mapError`). */
  fail(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    // After the consumer's `return()` nobody reads any more: a later failure is not news to anyone.
    if (this.#closed) return;
    this.#failure = { error };
    this.#settleWaiter();
  }

  /** Drops the buffered values (the stream was aborted or closed: nobody will read them). */
  clear(): void {
    this.#buffer = [];
    this.#head = 0;
  }

  /**
   * The next buffered value without a promise, `undefined` when none is buffered (then `next()` waits):
   * for a consumer that wraps this queue in its own iterator and would otherwise pay a second promise
   * per value. The value itself, not an iterator result: that consumer builds its own result anyway, and
   * this runs once per stream chunk. Only for queues whose values are never `undefined`.
   */
  poll(): T | undefined {
    return this.#head < this.#buffer.length ? this.#take() : undefined;
  }

  /** The next value; waits for one when none is buffered. */
  next(): Promise<IteratorResult<T, undefined>> {
    if (this.#head < this.#buffer.length) return Promise.resolve({ done: false, value: this.#take() });
    if (this.#ended || this.#closed) return this.#endResult();
    return new Promise((resolve, reject) => {
      this.#waiter = { batch: false, resolve: resolve as Waiter<T>['resolve'], reject };
    });
  }

  /**
   * Every buffered value (never an empty array), waiting for the next push when there is none; `undefined`
   * once the queue has ended. One await per batch instead of one per value.
   */
  readBatch(): Promise<T[] | undefined> {
    if (this.#head < this.#buffer.length) {
      const batch = this.#head === 0 ? this.#buffer : this.#buffer.slice(this.#head);
      this.clear();
      this.#checkResume();
      return Promise.resolve(batch);
    }
    if (this.#ended || this.#closed) {
      return this.#endResult().then((result) => (result.done ? undefined : [result.value]));
    }
    return new Promise((resolve, reject) => {
      this.#waiter = { batch: true, resolve: resolve as Waiter<T>['resolve'], reject };
    });
  }

  /** The consumer stops early: `onReturn` runs (when the producer had not ended), the buffer is dropped. */
  async return(): Promise<IteratorResult<T, undefined>> {
    if (!this.#closed) {
      // Closed first: a push while `onReturn` runs is ignored, so one clear leaves the buffer empty.
      this.#closed = true;
      this.clear();
      if (!this.#ended) await this.#options.onReturn?.();
      this.#failure = undefined;
      this.#settleWaiter();
    }
    return doneResult;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  #take(): T {
    const value = this.#buffer[this.#head++] as T;
    if (this.#head === this.#buffer.length) this.clear();
    this.#checkResume();
    return value;
  }

  #checkPause(): void {
    if (!this.#paused && this.size >= this.#highWaterMark) {
      this.#paused = true;
      this.#options.onPause?.();
    }
  }

  #checkResume(): void {
    if (this.#paused && this.size <= this.#highWaterMark / 2) {
      this.#paused = false;
      this.#options.onResume?.();
    }
  }

  /** What a read answers once nothing is buffered and the queue is over: the failure once, then done. */
  #endResult(): Promise<IteratorResult<T, undefined>> {
    this.#closed = true;
    const failure = this.#failure;
    if (failure === undefined) return Promise.resolve(doneResult);
    this.#failure = undefined;
    const { mapError } = this.#options;
    return Promise.reject(mapError === undefined ? failure.error : mapError(failure.error));
  }

  /** A waiting read learns of the end (or the failure): the buffer is empty, or it would not wait. */
  #settleWaiter(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    this.#waiter = undefined;
    const result = this.#endResult();
    if (waiter.batch) result.then(() => waiter.resolve(undefined), waiter.reject);
    else result.then(waiter.resolve, waiter.reject);
  }
}
