import type { SseFrame } from '../agent/server-sse/sse-frame.js';
import { followRunEvents } from '../stores/follow-run-events.js';
import { type ChatRunInfo, type ChatStateStore, chatKeys, readJsonValue, runIsOver } from './chat-state.js';

/** Options of `relayRunEvents`. */
export interface RelayRunEventsOptions {
  store: ChatStateStore;
  runId: string;
  /** The last event id the client has (`Last-Event-ID`); the events after it are sent. */
  after?: number | undefined;
  /** How often the log and the run are read again without a signal, since signals are best effort. @default 1_000 */
  recheckMs?: number;
  /** Events read per store call. @default 500 */
  batchSize?: number;
  /** Ends the relay when aborted (the client went away). */
  signal?: AbortSignal | undefined;
}

/**
 * A run's events as SSE frames from the store's log, on any server (`followRunEvents`): those after
 * `after`, then the rest as they are appended, ending once the run's outcome is recorded (or its lease
 * lapsed) and the log is read to its end. The run's values are read only when the relay starts, when
 * the run signals its end, and on the re-read timer, never per batch. Ids come from the log, so a
 * reconnect with `Last-Event-ID` gets no gap and no id twice.
 */
export async function* relayRunEvents(options: RelayRunEventsOptions): AsyncGenerator<SseFrame> {
  const { store, runId, recheckMs = 1_000, batchSize = 500, signal } = options;
  const afterId =
    options.after !== undefined && Number.isInteger(options.after) && options.after >= 0
      ? options.after
      : undefined;
  const isOver = async () => runIsOver((await readJsonValue<ChatRunInfo>(store, chatKeys.run(runId))).value);
  for await (const event of followRunEvents(store, runId, {
    afterId,
    isOver,
    recheckMs,
    batchSize,
    signal,
  })) {
    yield { id: String(event.id), data: event.data };
  }
}
