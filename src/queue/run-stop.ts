import type { RunRecord, Store } from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors.js';
import { RunStoppedError } from './queue-errors.js';

/** The shared value holding a run's stop request, and the signal channel that announces it. */
export function stopChannel(runId: string): string {
  return `stop:${runId}`;
}

// A stop request outlives any run that could still pick it up (a job retried after a day is not).
const STOP_REQUEST_TTL_MS = 86_400_000;

/** True when the store keeps shared values, where a stop request waits for the worker of the run. */
export function canRecordStop(store: Store): boolean {
  return typeof store.getValue === 'function' && typeof store.setValueIf === 'function';
}

/**
 * Records that `runId` must stop (a shared value, so a worker that missed the signal or takes the run
 * over later still sees it), then signals the workers. A request already recorded is kept.
 */
export async function requestStop(store: Store, runId: string, reason: string | undefined): Promise<void> {
  if (canRecordStop(store)) {
    const key = stopChannel(runId);
    const text = JSON.stringify({ reason: reason ?? null });
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await store.getValue!(key);
      if (current.value !== undefined) break;
      if (await store.setValueIf!(key, current.version, text, { ttlMs: STOP_REQUEST_TTL_MS })) break;
    }
  }
  await store.signal?.(stopChannel(runId), JSON.stringify({ reason: reason ?? null }));
}

/** The stop request of `runId`, if one was recorded: `{ reason }`. */
export async function readStopRequest(
  store: Store,
  runId: string,
): Promise<{ reason: string | undefined } | undefined> {
  if (!canRecordStop(store)) return undefined;
  const { value } = await store.getValue!(stopChannel(runId));
  return value === undefined ? undefined : { reason: parseReason(value) };
}

/**
 * Calls `onStop` once when `runId` is asked to stop: on the store's signal, and on a re-read of the stop
 * request every `recheckMs` (a signal sent while this process's connection was down is lost). A store
 * that cannot subscribe now (it is down) leaves the re-reads to find the request: watching never fails
 * the run. Answers the function that stops watching.
 */
export async function watchStop(
  store: Store,
  runId: string,
  onStop: (reason: string | undefined) => void,
  { recheckMs, onError }: { recheckMs: number; onError: (error: unknown) => void },
): Promise<() => Promise<void>> {
  let stopped = false;
  const fire = (reason: string | undefined) => {
    if (stopped) return;
    stopped = true;
    onStop(reason);
  };
  const unsubscribe = store.onSignal
    ? await store
        .onSignal(stopChannel(runId), (message) => fire(parseReason(message)))
        .catch((error) => {
          onError(error);
          return undefined;
        })
    : undefined;
  const timer = canRecordStop(store)
    ? setInterval(() => {
        readStopRequest(store, runId).then((request) => request && fire(request.reason), onError);
      }, recheckMs)
    : undefined;
  timer?.unref();
  return async () => {
    clearInterval(timer);
    await unsubscribe?.().catch(onError);
  };
}

/**
 * Records the run as stopped: status `failed` (the status of an aborted run) with a `RunStoppedError`
 * text, nothing waiting and nothing in flight. Version-checked, read again on a conflict; a run that
 * already completed or failed keeps its outcome. Answers the record as it ends.
 */
export async function markStopped(
  store: Store,
  runId: string,
  reason: string | undefined,
): Promise<RunRecord | undefined> {
  for (let attempt = 0; ; attempt++) {
    const record = await store.getRun(runId);
    if (!record || record.status === 'completed' || record.status === 'failed') return record;
    const { version, createdAt: _createdAt, updatedAt: _updatedAt, writeId: _writeId, ...input } = record;
    const error = new RunStoppedError(reason);
    try {
      return await store.updateRun(runId, version, {
        ...input,
        status: 'failed',
        error: `${error.name}: ${error.message}`,
        interruptions: [],
        inFlight: [],
      });
    } catch (conflict) {
      if (!RunConflictError.isInstance(conflict) || attempt >= 20) throw conflict;
    }
  }
}

/** True when a stored run ended by `queue.stop`. */
export function isStoppedRecord(record: Pick<RunRecord, 'status' | 'error'>): boolean {
  return record.status === 'failed' && record.error?.startsWith('RunStoppedError:') === true;
}

function parseReason(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { reason?: unknown };
    return typeof parsed.reason === 'string' ? parsed.reason : undefined;
  } catch {
    return undefined;
  }
}
