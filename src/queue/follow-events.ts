import type { RunRecord } from '../agent/durable/store.js';
import type { AgentEvent } from '../agent/events.js';
import type { EventBus } from './event-bus.js';

/**
 * Iterates the events of `runId` from `bus` until `finish` or `error`; when the stored run has already
 * ended (checked after subscribing, so nothing falls between), ends at once.
 */
export async function* followEvents(
  bus: EventBus,
  runId: string,
  read: () => Promise<RunRecord | undefined>,
): AsyncGenerator<AgentEvent> {
  const queued: AgentEvent[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = await bus.subscribe(runId, (event) => {
    queued.push(event);
    wake?.();
  });
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
}
