import { toAgentEventJson } from '../agent/agent-event-json.js';
import type { RunEventLogStore, Store, StoredRunEvent } from '../agent/durable/store.js';
import type { AgentEvent } from '../agent/events.js';
import { ConfigurationError } from '../core/errors.js';
import { followRunEvents } from '../stores/follow-run-events.js';
import { hasRunEventLog } from '../stores/run-event-log-writer.js';
import { readRunJobMeta } from './run-job-meta.js';

/**
 * An event as a queued run's log stores it (`toAgentEventJson`): errors become `{ name, message }` with
 * secrets masked (never their causes or state), also inside a sub-agent's forwarded events.
 */
export function encodeRunEvent(event: AgentEvent): string {
  return JSON.stringify(toAgentEventJson(event));
}

/** Options of `followQueuedRun`. */
export interface FollowQueuedRunOptions {
  /** How long the follower waits without a signal before it reads the log and the record again. @default 5_000 (at most 200 on a `fileStore`: see `followRunEvents`) */
  recheckMs?: number;
  /** Once the record says the run ended, how long its last events may still be appended. @default 1_000 */
  settleMs?: number;
  /** Ends the iteration when aborted. */
  signal?: AbortSignal | undefined;
}

// The events after which a run (or one of its attempts at resuming) says nothing more.
const LAST_EVENT_TYPES = new Set(['finish', 'error', 'abort']);

/** True for a stored `finish`, `error` or `abort` event. */
function isLastEvent(event: StoredRunEvent): boolean {
  // Most events are not: a cheap look for the type's text first, then the parse that settles it.
  if (!/"type":"(?:finish|error|abort)"/.test(event.data)) return false;
  try {
    return LAST_EVENT_TYPES.has((JSON.parse(event.data) as { type?: string }).type ?? '');
  } catch {
    return false;
  }
}

/**
 * `queue.events(runId)`: the run's events from its stored log (`followRunEvents`), as event objects
 * (`toAgentEventJson`'s JSON). It replays the run's current part, the events after the last `finish`,
 * `error` or `abort` stored when called (a late follower misses nothing of the part under way; a run
 * paused for approval and resumed starts after its pause), then follows until the next such event, or
 * until the record is no longer `running` and its log is read to the end. The log is the one the run's
 * jobs append to (a chat continuation's `eventLogId`).
 */
export function followQueuedRun(
  store: Store,
  runId: string,
  { recheckMs = 5_000, settleMs = 1_000, signal }: FollowQueuedRunOptions = {},
): AsyncIterable<AgentEvent> {
  if (!hasRunEventLog(store)) {
    throw new ConfigurationError({
      field: 'store',
      rule: 'queue.events needs a store with a run event log (appendRunEvents and readRunEvents)',
    });
  }
  // Where the current part starts, found when called: a run that ends before the iteration starts is
  // still replayed.
  const start = currentPartStart(store, runId);
  start.catch(() => undefined);
  return (async function* iterate(): AsyncGenerator<AgentEvent> {
    const { logId, afterId } = await start;
    const isOver = async () => {
      const record = await store.getRun(runId);
      return record !== undefined && record.status !== 'running';
    };
    const events = followRunEvents(store, logId, {
      afterId,
      isOver,
      isLast: isLastEvent,
      recheckMs,
      settleMs,
      signal,
    });
    for await (const event of events) yield JSON.parse(event.data) as AgentEvent;
  })();
}

/** The run's log id, and the id of the last `finish`/`error`/`abort` stored in it (-1 when none). */
async function currentPartStart(
  store: Store & RunEventLogStore,
  runId: string,
): Promise<{ logId: string; afterId: number }> {
  // Both asked at once, before any later append of the run's worker reaches the store.
  const [meta, first] = await Promise.all([
    readRunJobMeta(store, runId).catch(() => undefined),
    store.readRunEvents(runId, -1, 500),
  ]);
  const logId = meta?.eventLogId ?? runId;
  let afterId = -1;
  let last = -1;
  for (let events = logId === runId ? first : undefined; ; events = undefined) {
    events ??= await store.readRunEvents(logId, last, 500);
    for (const event of events) {
      last = event.id;
      if (isLastEvent(event)) afterId = event.id;
    }
    if (events.length < 500) return { logId, afterId };
  }
}
