import type { RunEventLogStore, SignalStore, StoredRunEvent } from '../agent/durable/store.js';
import { ConfigurationError } from '../core/errors.js';
import { isTransient } from './is-transient.js';
import { decodeRunEventsSignal, eventsChannel, recheckMsFor } from './run-events-signal.js';

/** Options of `followRunEvents`. */
export interface FollowRunEventsOptions {
  /** The last id the follower has (`Last-Event-ID`): the events after it are answered. @default -1 (all) */
  afterId?: number | undefined;
  /** Ends the iteration (without an error) when aborted. */
  signal?: AbortSignal | undefined;
  /**
   * Whether the run will append nothing more. Read when the follower is caught up at the start, when a
   * signal other than an append arrives (`end`), and on the timer: never on each wake.
   */
  isOver: () => Promise<boolean>;
  /** An event after which the run says nothing more (`finish`, `error`, `abort`): the iteration ends with it. */
  isLast?: ((event: StoredRunEvent) => boolean) | undefined;
  /** How long the follower waits without a signal before it reads the log and `isOver` again (signals are best effort). @default 1_000; at most 200 on a `fileStore`, whose signals stay in its process */
  recheckMs?: number;
  /**
   * Once `isOver` is true, how long events may still arrive (a run recorded as ended before its last
   * events were appended). @default 0
   */
  settleMs?: number;
  /** Events read per store call. @default 500 */
  batchSize?: number;
}

// Signals kept for a follower that does not read (a stalled client): past this many it reads the log
// again when it comes back, so its memory stays bounded.
const MAX_QUEUED_SIGNALS = 64;

/**
 * The events of a run's stored log, live, on any process sharing the store: those after `afterId`, then
 * each batch as it is appended, woken by the writer's `events:<runId>` signal, which carries the events
 * when they fit (then nothing is read), or by the `recheckMs` timer when signals are lost. Ids come from
 * the log: dense, each once, in order, with no gap whichever server or worker appended them. Ends with an
 * `isLast` event, or once `isOver` and the log is read to its end, or when `signal` aborts. The only way
 * a run's events are followed: `queue.events()`, the web relay and the run inspector read this.
 */
export async function* followRunEvents(
  store: RunEventLogStore & Partial<SignalStore>,
  runId: string,
  options: FollowRunEventsOptions,
): AsyncGenerator<StoredRunEvent> {
  checkFollowRunEvents(runId, options);
  const { signal, isOver, isLast, settleMs = 0, batchSize = 500 } = options;
  // A fileStore's signals stay in its process: a writer elsewhere is seen by re-reading, so re-read soon.
  const recheckMs = recheckMsFor(store, options.recheckMs ?? 1_000);
  let last = options.afterId ?? -1;
  const inbox: string[] = [];
  let overflowed = false;
  let wake: (() => void) | undefined;
  const onMessage = (message: string) => {
    if (inbox.length >= MAX_QUEUED_SIGNALS) overflowed = true;
    else inbox.push(message);
    wake?.();
  };
  const onAbort = () => wake?.();
  signal?.addEventListener('abort', onAbort);
  // Subscribed before the first read: an append after that read is either in the read or signalled.
  const unsubscribe = await store.onSignal?.(eventsChannel(runId), onMessage).catch(() => undefined);
  // Reads the log after `last` until it is dry. A store that is down for a moment ends the read early:
  // the follower reads on after its next wake or timer, from the same id.
  let readFailed = false;
  async function* readOn(): AsyncGenerator<StoredRunEvent> {
    for (;;) {
      let events: StoredRunEvent[];
      try {
        events = await store.readRunEvents(runId, last, batchSize);
      } catch (error) {
        if (!isTransient(error)) throw error;
        readFailed = true;
        return;
      }
      for (const event of events) {
        if (event.id <= last) continue;
        last = event.id;
        yield event;
      }
      if (events.length < batchSize) return;
    }
  }
  try {
    let read = true;
    let checkOver = true;
    while (!signal?.aborted) {
      if (read) {
        read = false;
        for await (const event of readOn()) {
          yield event;
          if (isLast?.(event)) return;
        }
      }
      if (readFailed) {
        // Not caught up: whether the run is over is asked once the log could be read again.
        readFailed = false;
        await sleep(Math.min(recheckMs, 1_000), signal);
        read = true;
        continue;
      }
      if (checkOver) {
        checkOver = false;
        if (await isOver().catch(() => false)) {
          if (settleMs > 0) await sleep(settleMs, signal);
          for await (const event of readOn()) {
            yield event;
            if (isLast?.(event)) return;
          }
          if (!readFailed) return;
          checkOver = true;
          continue;
        }
      }
      if (overflowed) {
        overflowed = false;
        inbox.length = 0;
        read = true;
        continue;
      }
      const message = inbox.shift();
      if (message !== undefined) {
        const decoded = decodeRunEventsSignal(message);
        if (decoded.kind === 'other') checkOver = true;
        else if (decoded.lastId <= last) continue;
        else if (decoded.events && decoded.events[0]!.id <= last + 1) {
          // The signal holds what follows `last`: no read.
          for (const event of decoded.events) {
            if (event.id <= last) continue;
            last = event.id;
            yield event;
            if (isLast?.(event)) return;
          }
        } else read = true;
        continue;
      }
      const woken = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), recheckMs);
        wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      wake = undefined;
      if (!woken) read = checkOver = true;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await unsubscribe?.().catch(() => undefined);
  }
}

/** Refuses bad arguments before anything is read, naming the field and the rule. */
function checkFollowRunEvents(runId: unknown, options: FollowRunEventsOptions): void {
  const fail = (field: string, rule: string): never => {
    throw new ConfigurationError({ field, rule });
  };
  if (typeof runId !== 'string' || runId === '') fail('runId', 'must be a non-empty string');
  if (typeof options?.isOver !== 'function')
    fail('isOver', 'must be a function answering a promise of a boolean');
  if (options.isLast !== undefined && typeof options.isLast !== 'function')
    fail('isLast', 'must be a function');
  const { afterId } = options;
  if (afterId !== undefined && !(Number.isSafeInteger(afterId) && afterId >= -1)) {
    fail('afterId', `must be an integer >= -1 or undefined, got ${String(afterId)}`);
  }
  for (const field of ['recheckMs', 'batchSize'] as const) {
    const value = options[field];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      fail(field, `must be a positive integer, got ${String(value)}`);
    }
  }
  if (options.settleMs !== undefined && !(Number.isSafeInteger(options.settleMs) && options.settleMs >= 0)) {
    fail('settleMs', `must be an integer >= 0, got ${String(options.settleMs)}`);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
