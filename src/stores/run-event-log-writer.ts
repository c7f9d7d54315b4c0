import type { RunEventLogStore, Store } from '../agent/durable/store.js';
import { computeBackoffDelay } from '../transport/retry-timing.js';
import { appendAndAnnounceRunEvents } from './run-events-signal.js';

/** True when the store keeps run event logs. */
export function hasRunEventLog(store: Store): store is Store & RunEventLogStore {
  return typeof store.appendRunEvents === 'function' && typeof store.readRunEvents === 'function';
}

/**
 * The id the next event of `runId` gets: the length of its stored log (ids are dense from 0). Found by
 * doubling then bisecting on one-event reads, so a long log costs a few reads, not one read of it all.
 */
export async function nextRunEventId(store: RunEventLogStore, runId: string): Promise<number> {
  const holds = async (id: number) =>
    (await store.readRunEvents(runId, id === 0 ? undefined : id - 1, 1)).length > 0;
  if (!(await holds(0))) return 0;
  let present = 0;
  let absent = 1;
  while (await holds(absent)) {
    present = absent;
    absent *= 2;
  }
  while (absent - present > 1) {
    const middle = Math.floor((present + absent) / 2);
    if (await holds(middle)) present = middle;
    else absent = middle;
  }
  return absent;
}

/** Options of `RunEventLogWriter`. */
export interface RunEventLogWriterOptions {
  /**
   * Waits this long before appending a first event, to batch more. The default appends at once what is
   * queued: events that arrive while an append is in flight go together in the next one. @default 0
   */
  batchMs?: number;
  /** A batch holds at most this many events. @default 256 */
  maxBatch?: number;
  /** The log expires this long after its last append. @default 86_400_000 */
  ttlMs?: number | undefined;
  /** The id of the first event, when the writer knows it (a new run's log starts at 0): no lookup. */
  firstId?: number | undefined;
  /** Told about failed appends and signals (an append is retried with the next batch). */
  onError?: ((error: unknown) => void) | undefined;
}

/**
 * Appends one run's events (as JSON texts) to the store's run event log, continuing the ids of what is
 * already stored (a run taken over from a killed worker goes on from the log's length), and announces
 * each batch on `events:<runId>` with the events themselves when they fit, so followers
 * (`followRunEvents`) need not read the log. One append at a time, in order; what is pushed meanwhile
 * goes in the next one, with no fixed delay. A failed append keeps its events for the next one (the store
 * skips ids it already holds, so a retried append whose reply was lost adds nothing twice). The one
 * writer of run event logs: workers and the web chat both use it.
 */
export class RunEventLogWriter {
  readonly #store: Store & RunEventLogStore;
  readonly #runId: string;
  readonly #batchMs: number;
  readonly #maxBatch: number;
  readonly #ttlMs: number;
  readonly #onError: (error: unknown) => void;
  #nextId: Promise<number>;
  #pending: string[] = [];
  #chain: Promise<void> = Promise.resolve();
  #scheduled = false;
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;

  constructor(store: Store & RunEventLogStore, runId: string, options: RunEventLogWriterOptions = {}) {
    this.#store = store;
    this.#runId = runId;
    this.#batchMs = options.batchMs ?? 0;
    this.#maxBatch = options.maxBatch ?? 256;
    this.#ttlMs = options.ttlMs ?? 86_400_000;
    this.#onError = options.onError ?? (() => undefined);
    this.#nextId =
      options.firstId !== undefined ? Promise.resolve(options.firstId) : nextRunEventId(store, runId);
    // Read again by the first append when it failed.
    this.#nextId.catch(() => undefined);
  }

  /** Queues one event's JSON; it is appended with whatever else is queued once the append in flight ends. */
  push(json: string): void {
    this.#pending.push(json);
    if (this.#scheduled || this.#timer) return;
    if (this.#batchMs > 0) {
      this.#timer = setTimeout(() => void this.flush(), this.#batchMs);
      return;
    }
    // Appended after the current synchronous burst (and after the append in flight): never a timer.
    this.#scheduled = true;
    this.#chain = this.#chain.then(() => {
      this.#scheduled = false;
      return this.#appendPending();
    });
  }

  /** Appends what is queued; resolves once it is stored (or the append failed and was reported). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#chain = this.#chain.then(() => this.#appendPending());
    return this.#chain;
  }

  /** Renews the log's time to live (an empty append), unless nothing was appended yet. */
  async touch(): Promise<void> {
    const nextId = await this.#nextId.catch(() => 0);
    if (nextId === 0) return;
    await this.#store.appendRunEvents(this.#runId, nextId, [], { ttlMs: this.#ttlMs }).catch(() => undefined);
  }

  /**
   * Appends everything still queued, trying three times (about 1.5 s: the end of a job waits for it);
   * answers whether nothing was left unwritten.
   */
  async close(): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      await this.flush();
      if (this.#pending.length === 0) return true;
      if (attempt === 2) break;
      await new Promise((resolve) => setTimeout(resolve, computeBackoffDelay(attempt)));
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    return this.#pending.length === 0;
  }

  async #appendPending(): Promise<void> {
    // The next append goes while the last batch's signal is on its way; the flush waits for both.
    let announced: Promise<void> = Promise.resolve();
    try {
      await this.#appendAll((sent) => {
        const before = announced;
        announced = before.then(() => sent);
      });
    } finally {
      await announced;
    }
  }

  async #appendAll(onAnnounced: (announced: Promise<void>) => void): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.slice(0, this.#maxBatch);
      let firstId: number;
      try {
        firstId = await this.#nextId;
      } catch (error) {
        this.#nextId = nextRunEventId(this.#store, this.#runId);
        this.#nextId.catch(() => undefined);
        return this.#retryLater(error);
      }
      try {
        const { announced } = await appendAndAnnounceRunEvents(this.#store, this.#runId, firstId, batch, {
          ttlMs: this.#ttlMs,
          onSignalError: this.#onError,
        });
        onAnnounced(announced);
      } catch (error) {
        // Retried from the same first id: if the failed append landed (its reply lost), the store skips
        // the ids it holds, so nothing is stored twice.
        return this.#retryLater(error);
      }
      this.#pending.splice(0, batch.length);
      this.#nextId = Promise.resolve(firstId + batch.length);
      this.#failures = 0;
    }
  }

  #retryLater(error: unknown): void {
    this.#failures++;
    this.#onError(error);
    this.#timer ??= setTimeout(() => void this.flush(), computeBackoffDelay(this.#failures - 1));
  }
}
