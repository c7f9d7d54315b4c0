import type { RunEventLogStore, SignalStore, StoredRunEvent } from '../agent/durable/store.js';
import { MAX_SIGNAL_BYTES } from './shared-state-checks.js';

/** The signal channel told about the events appended to a run's log (and, with `end`, its end). */
export function eventsChannel(runId: string): string {
  return `events:${runId}`;
}

/** What an `events:<runId>` signal said: the last appended id, with the events when they fit. */
export type RunEventsSignal =
  | { kind: 'appended'; lastId: number; events?: StoredRunEvent[] }
  /** Anything else (`end`, a message from an older writer): the follower checks whether the run is over. */
  | { kind: 'other' };

/** The message on `events:<runId>` saying the run's outcome is recorded: a follower checks it now. */
export const RUN_END_SIGNAL = 'end';

/**
 * Tells `events:<runId>`'s listeners the run's outcome is recorded (`queue.waitUntilFinished`, and
 * followers of a run that ended without a last event), best effort.
 */
export async function announceRunEnd(store: Partial<SignalStore>, runId: string): Promise<void> {
  await store.signal?.(eventsChannel(runId), RUN_END_SIGNAL).catch(() => undefined);
}

/**
 * A store's append that sends its signal in the same trip (`postgresStore`: the NOTIFY in the append's
 * statement, one commit for both). Internal to the stores: `appendAndAnnounceRunEvents` uses it when the
 * store has it, and is otherwise the append then the signal.
 */
export const APPEND_AND_SIGNAL: unique symbol = Symbol.for('svc-agents.appendRunEventsAndSignal');

/**
 * Set (to `true`) on a store whose signals reach only its own process (`fileStore`): a follower in another
 * process is woken by its re-read timer alone, so `followRunEvents` re-reads it often ({@link recheckMsFor}).
 */
export const SIGNALS_STAY_IN_PROCESS: unique symbol = Symbol.for('svc-agents.signalsStayInProcess');

/** How long a follower waits for a signal before it re-reads: at most 200 ms where signals cannot reach it. */
export function recheckMsFor(store: object, recheckMs: number): number {
  const local = (store as { [SIGNALS_STAY_IN_PROCESS]?: boolean })[SIGNALS_STAY_IN_PROCESS] === true;
  return local ? Math.min(recheckMs, 200) : recheckMs;
}

/** The signature of a store's `APPEND_AND_SIGNAL` method. */
export type AppendAndSignal = (
  runId: string,
  firstId: number,
  events: readonly string[],
  options: { ttlMs?: number },
  signal: { channel: string; message: string },
) => Promise<void>;

// Room for the two ids and their line breaks within a signal.
const MAX_EVENT_BYTES = MAX_SIGNAL_BYTES - 64;

/**
 * The message announcing `events` appended from `firstId`: the last id on the first line, then (when
 * they fit in one signal and none holds a line break, as JSON texts never do) the first id and one event
 * per line, so a follower that is up to date takes them from the signal without reading the log.
 */
export function encodeRunEventsSignal(firstId: number, events: readonly string[]): string {
  const lastId = String(firstId + events.length - 1);
  let bytes = 0;
  for (const event of events) {
    // A UTF-8 character takes at most 3 bytes per UTF-16 unit: no exact count needed to know it fits.
    bytes += event.length * 3 + 1;
    if (bytes > MAX_EVENT_BYTES || event.includes('\n')) return lastId;
  }
  return `${lastId}\n${firstId}\n${events.join('\n')}`;
}

/** Reads a message of `encodeRunEventsSignal`; any other text is `{ kind: 'other' }`. */
export function decodeRunEventsSignal(message: string): RunEventsSignal {
  const firstBreak = message.indexOf('\n');
  const lastId = parseId(firstBreak === -1 ? message : message.slice(0, firstBreak));
  if (lastId === undefined) return { kind: 'other' };
  if (firstBreak === -1) return { kind: 'appended', lastId };
  const secondBreak = message.indexOf('\n', firstBreak + 1);
  const firstId = parseId(message.slice(firstBreak + 1, secondBreak === -1 ? undefined : secondBreak));
  if (firstId === undefined || secondBreak === -1) return { kind: 'appended', lastId };
  const texts = message.slice(secondBreak + 1).split('\n');
  if (firstId + texts.length - 1 !== lastId) return { kind: 'appended', lastId };
  return { kind: 'appended', lastId, events: texts.map((data, index) => ({ id: firstId + index, data })) };
}

function parseId(text: string): number | undefined {
  if (!/^[0-9]{1,15}$/.test(text)) return undefined;
  return Number(text);
}

/**
 * Appends `events` from `firstId` to the run's log, then announces them on `events:<runId>` (best
 * effort: a lost signal only makes followers read the log on their timer). Resolves once appended, with
 * `announced` settling when the signal is sent (never rejecting: a failed one goes to `onSignalError`),
 * so a writer can start its next append meanwhile. The one publish of a batch, for every writer of run
 * event logs.
 */
export async function appendAndAnnounceRunEvents(
  store: RunEventLogStore & Partial<SignalStore>,
  runId: string,
  firstId: number,
  events: readonly string[],
  options: { ttlMs?: number; onSignalError?: (error: unknown) => void } = {},
): Promise<{ announced: Promise<void> }> {
  const appendOptions = options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs };
  const together = (store as { [APPEND_AND_SIGNAL]?: AppendAndSignal })[APPEND_AND_SIGNAL];
  if (together && events.length > 0) {
    const signal = { channel: eventsChannel(runId), message: encodeRunEventsSignal(firstId, events) };
    await together.call(store, runId, firstId, events, appendOptions, signal);
    return { announced: Promise.resolve() };
  }
  await store.appendRunEvents(runId, firstId, events, appendOptions);
  if (events.length === 0 || !store.signal) return { announced: Promise.resolve() };
  const announced = store
    .signal(eventsChannel(runId), encodeRunEventsSignal(firstId, events))
    .catch((error: unknown) => options.onSignalError?.(error));
  return { announced };
}
