/** Options of `CallBatcher`. */
export interface CallBatcherOptions<Call> {
  /** How many batches may be in flight at once; calls made meanwhile wait for the next free one. */
  lanes: number;
  /** A batch holds at most this many calls. */
  maxBatch: number;
  /**
   * Calls with the same key never share a batch nor run in two batches at once: the later one goes in a
   * batch after the earlier one's ended (a run's appends stay in order and never meet in two statements).
   */
  keyOf?: (call: Call) => string;
}

interface Waiting<Call, Answer> {
  call: Call;
  resolve: (answer: Answer) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs concurrent calls as batches, one round trip and one commit for many callers: a call made while
 * every lane is busy joins the next batch, and one made when a lane is free goes at once with whatever
 * else was called in the same tick. Never a timer: batching comes only from what is already waiting.
 * `run` answers one result per call, in order; when it throws, every call of its batch rejects with it.
 */
export class CallBatcher<Call, Answer> {
  readonly #run: (calls: Call[]) => Promise<Answer[]>;
  readonly #lanes: number;
  readonly #maxBatch: number;
  readonly #keyOf: ((call: Call) => string) | undefined;
  readonly #waiting: Waiting<Call, Answer>[] = [];
  readonly #busyKeys = new Set<string>();
  #inFlight = 0;
  #scheduled = false;

  constructor(run: (calls: Call[]) => Promise<Answer[]>, options: CallBatcherOptions<Call>) {
    this.#run = run;
    this.#lanes = options.lanes;
    this.#maxBatch = options.maxBatch;
    this.#keyOf = options.keyOf;
  }

  /** Runs `call` in the next batch; answers its own result. */
  submit(call: Call): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.#waiting.push({ call, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // After the current tick: calls made together share the batch.
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inFlight < this.#lanes && this.#waiting.length > 0) {
      const batch = this.#take();
      if (batch.length === 0) return;
      this.#inFlight++;
      void this.#send(batch);
    }
  }

  // The next batch: waiting calls in order, skipping those whose key is busy or already taken.
  #take(): Waiting<Call, Answer>[] {
    const batch: Waiting<Call, Answer>[] = [];
    const keyOf = this.#keyOf;
    for (let index = 0; index < this.#waiting.length && batch.length < this.#maxBatch; ) {
      const waiting = this.#waiting[index]!;
      const key = keyOf?.(waiting.call);
      if (key !== undefined && this.#busyKeys.has(key)) {
        index++;
        continue;
      }
      if (key !== undefined) this.#busyKeys.add(key);
      batch.push(waiting);
      this.#waiting.splice(index, 1);
    }
    return batch;
  }

  async #send(batch: Waiting<Call, Answer>[]): Promise<void> {
    try {
      const answers = await this.#run(batch.map((waiting) => waiting.call));
      for (let index = 0; index < batch.length; index++) batch[index]!.resolve(answers[index]!);
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    } finally {
      if (this.#keyOf) for (const waiting of batch) this.#busyKeys.delete(this.#keyOf(waiting.call));
      this.#inFlight--;
      this.#pump();
    }
  }
}
