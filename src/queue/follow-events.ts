import type { RunRecord } from '../agent/durable/store.js';
import type { AgentEvent } from '../agent/events.js';
import type { EventBus } from './event-bus.js';

/** Options of `followEvents`. */
export interface FollowEventsOptions {
  /** How often the stored run is read again, in case its last events were lost. @default 5_000 */
  recheckMs?: number;
  /** How long events may still arrive once the record was found finished. @default 1_000 */
  settleMs?: number;
}

/**
 * The events of `runId` from `bus` until `finish`, `error` or `abort` (a stopped run); when the stored run has already ended
 * (checked after subscribing, so nothing falls between), ends at once. Subscribes when called, not
 * when first iterated: events sent from then on are kept for the iterator. The bus is best-effort, so
 * the record is read again when the bus reconnects and every `recheckMs`: a run found finished without
 * its last event (lost while a connection was down, or never sent by a worker that died) ends the
 * iteration too, after `settleMs` for events still on their way.
 */
export function followEvents(
  bus: EventBus,
  runId: string,
  read: () => Promise<RunRecord | undefined>,
  { recheckMs = 5_000, settleMs = 1_000 }: FollowEventsOptions = {},
): AsyncIterable<AgentEvent> {
  const queued: AgentEvent[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  let settleTimer: NodeJS.Timeout | undefined;
  const recheck = () => {
    read().then(
      (record) => {
        if (!record || record.status === 'running' || settleTimer) return;
        settleTimer = setTimeout(() => {
          finished = true;
          wake?.();
        }, settleMs);
        settleTimer.unref();
      },
      // The store is unreachable for now: the next check tries again.
      () => undefined,
    );
  };
  const subscribed = bus.subscribe(
    runId,
    (event) => {
      queued.push(event);
      wake?.();
    },
    recheck,
  );
  // A failed subscription surfaces when iterated, not as an unhandled rejection.
  subscribed.catch(() => undefined);
  return (async function* iterate(): AsyncGenerator<AgentEvent> {
    const unsubscribe = await subscribed;
    const timer = setInterval(recheck, recheckMs);
    timer.unref();
    try {
      const record = await read();
      if (record && record.status !== 'running' && queued.length === 0) return;
      for (;;) {
        const event = queued.shift();
        if (event === undefined) {
          if (finished) return;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        yield event;
        if (event.type === 'finish' || event.type === 'error' || event.type === 'abort') return;
      }
    } finally {
      clearInterval(timer);
      clearTimeout(settleTimer);
      await unsubscribe();
    }
  })();
}
