import type { SseFrame } from '../agent/server-sse/sse-frame.js';
import { type ChatRunInfo, type ChatStateStore, chatKeys, readJsonValue, runIsOver } from './chat-state.js';

/** Options of `relayRunEvents`. */
export interface RelayRunEventsOptions {
  store: ChatStateStore;
  runId: string;
  /** The last event id the client has (`Last-Event-ID`); the events after it are sent. */
  after?: number | undefined;
  /** How often the log is re-read without a signal, since signals are best effort. @default 1_000 */
  recheckMs?: number;
  /** Events read per store call. @default 500 */
  batchSize?: number;
}

/**
 * A run's events as SSE frames from the store's log, on any server: those after `after`, then the rest as
 * they are appended (woken by the `events:<runId>` signal, or by the re-read timer), ending with the run.
 * Ids come from the log, so a reconnect with `Last-Event-ID` gets no gap and no id twice.
 */
export async function* relayRunEvents(options: RelayRunEventsOptions): AsyncGenerator<SseFrame> {
  const { store, runId, recheckMs = 1_000, batchSize = 500 } = options;
  let last =
    options.after !== undefined && Number.isInteger(options.after) && options.after >= 0
      ? options.after
      : undefined;
  let wake: (() => void) | undefined;
  let signalled = false;
  const unsubscribe = await store
    .onSignal?.(chatKeys.eventsChannel(runId), () => {
      signalled = true;
      wake?.();
    })
    .catch(() => undefined);
  try {
    for (;;) {
      signalled = false;
      const events = await store.readRunEvents(runId, last, batchSize);
      for (const event of events) {
        last = event.id;
        yield { id: String(event.id), data: event.data };
      }
      if (events.length === batchSize) continue;
      const info = (await readJsonValue<ChatRunInfo>(store, chatKeys.run(runId))).value;
      if (runIsOver(info)) {
        // Events appended between the read above and the outcome: read until the log is dry, a batch at
        // a time, so a client that reads slowly never makes this hold the whole log.
        for (;;) {
          const rest = await store.readRunEvents(runId, last, batchSize);
          for (const event of rest) {
            last = event.id;
            yield { id: String(event.id), data: event.data };
          }
          if (rest.length < batchSize) return;
        }
      }
      if (signalled) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, recheckMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    await unsubscribe?.().catch(() => {});
  }
}
