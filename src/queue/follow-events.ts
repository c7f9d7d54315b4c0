import type { RunRecord } from '../agent/durable/store.js';
import type { AgentEvent } from '../agent/events.js';
import type { EventBus } from './event-bus.js';

/**
 * The events of `runId` from `bus` until `finish` or `error`; when the stored run has already ended
 * (checked after subscribing, so nothing falls between), ends at once. Subscribes when called, not
 * when first iterated: events sent from then on are kept for the iterator.
 */
export function followEvents(
  bus: EventBus,
  runId: string,
  read: () => Promise<RunRecord | undefined>,
): AsyncIterable<AgentEvent> {
  const queued: AgentEvent[] = [];
  let wake: (() => void) | undefined;
  const subscribed = bus.subscribe(runId, (event) => {
    queued.push(event);
    wake?.();
  });
  // A failed subscription surfaces when iterated, not as an unhandled rejection.
  subscribed.catch(() => undefined);
  return (async function* iterate(): AsyncGenerator<AgentEvent> {
    const unsubscribe = await subscribed;
    try {
      const record = await read();
      if (record && record.status !== 'running' && queued.length === 0) return;
      for (;;) {
        const event = queued.shift();
        if (event === undefined) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        yield event;
        if (event.type === 'finish' || event.type === 'error') return;
      }
    } finally {
      await unsubscribe();
    }
  })();
}
