import type { RunEventLogStore, Store } from '../agent/durable/store.js';
import { computeBackoffDelay } from '../transport/retry-timing.js';

/** The signal channel told the last appended id of a run's event log. */
export function eventsChannel(runId: string): string {
  return `events:${runId}`;
}

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
  /** Events are appended at most this long after they happen, in one write per batch. @default 10 */
  batchMs?: number;
  /** A batch is written at once when it holds this many events. @default 256 */
  maxBatch?: number;
  /** The log expires this long after its last append. @default 86_400_000 */
  ttlMs?: number | undefined;
  /** Told about failed appends and signals (an append is retried with the next batch). */
  onError?: ((error: unknown) => void) | undefined;
}

/**
 * Appends one run's events (as JSON texts) to the store's run event log, in batches, continuing the ids
 * of what is already stored (a run taken over from a killed worker goes on from the log's length), then
 * signals `events:<runId>` with the last id, so a web server following the run reads them. Appends are
 * one at a time and in order; a failed append keeps its events for the next one (the store skips ids it
 * already holds, so a retried append whose reply was lost adds nothing twice).
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
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;

  constructor(store: Store & RunEventLogStore, runId: string, options: RunEventLogWriterOptions = {}) {
    this.#store = store;
    this.#runId = runId;
    this.#batchMs = options.batchMs ?? 10;
    this.#maxBatch = options.maxBatch ?? 256;
    this.#ttlMs = options.ttlMs ?? 86_400_000;
    this.#onError = options.onError ?? (() => undefined);
    this.#nextId = nextRunEventId(store, runId);
    // Read again by the first append when it failed.
    this.#nextId.catch(() => undefined);
  }

  /** Queues one event's JSON for the next batch. */
  push(json: string): void {
    this.#pending.push(json);
    if (this.#pending.length >= this.#maxBatch) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), this.#batchMs);
  }

  /** Appends what is queued; resolves once it is stored (or the append failed and was reported). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#chain = this.#chain.then(() => this.#appendPending());
    return this.#chain;
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
    if (this.#pending.length === 0) return;
    const batch = this.#pending.slice();
    let firstId: number;
    try {
      firstId = await this.#nextId;
    } catch (error) {
      this.#nextId = nextRunEventId(this.#store, this.#runId);
      this.#nextId.catch(() => undefined);
      return this.#retryLater(error);
    }
    try {
      await this.#store.appendRunEvents(this.#runId, firstId, batch, { ttlMs: this.#ttlMs });
      this.#pending.splice(0, batch.length);
      const lastId = firstId + batch.length - 1;
      this.#nextId = Promise.resolve(lastId + 1);
      this.#failures = 0;
      await this.#store.signal?.(eventsChannel(this.#runId), String(lastId)).catch(this.#onError);
    } catch (error) {
      // Retried from the same first id: if the failed append landed (its reply lost), the store skips
      // the ids it holds, so nothing is stored twice.
      this.#retryLater(error);
    }
  }

  #retryLater(error: unknown): void {
    this.#failures++;
    this.#onError(error);
    this.#timer ??= setTimeout(() => void this.flush(), computeBackoffDelay(this.#failures - 1));
  }
}
