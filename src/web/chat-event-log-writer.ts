import { type ChatStateStore, chatKeys, trySignal } from './chat-state.js';

/** Appends a run's events to the store's log in batches: one append in flight, the rest queued behind it. */
export class ChatEventLogWriter {
  #next = 0;
  #queued: string[] = [];
  #flushing: Promise<void> | undefined;

  constructor(
    readonly store: ChatStateStore,
    readonly runId: string,
    readonly ttlMs: number,
  ) {}

  push(data: string): void {
    this.#queued.push(data);
    this.#flushing ??= this.#drain();
  }

  /** Renews the log's time to live (an empty append) unless an append is under way, which renews it too. */
  async touch(): Promise<void> {
    if (this.#flushing || this.#next === 0) return;
    await this.store.appendRunEvents(this.runId, this.#next, [], { ttlMs: this.ttlMs * 2 }).catch(() => {});
  }

  /** Waits until every pushed event is stored (one more try for a batch whose appends kept failing). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#queued.length === 0) return;
    this.#flushing = this.#drain();
    await this.#flushing;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queued.length > 0) {
        const batch = this.#queued;
        this.#queued = [];
        if (!(await this.#append(batch))) {
          // Kept for the next push or the final flush, in order: a store fault loses no event.
          this.#queued = [...batch, ...this.#queued];
          return;
        }
        this.#next += batch.length;
        await trySignal(this.store, chatKeys.eventsChannel(this.runId), String(this.#next - 1));
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  // Retried with the same ids: the log skips ids it holds, so a lost reply adds nothing twice.
  async #append(batch: string[]): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await this.store.appendRunEvents(this.runId, this.#next, batch, { ttlMs: this.ttlMs * 2 });
        return true;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      }
    }
    return false;
  }
}
