import type { Store } from '../agent/durable/store.js';
import { canRecordStop } from './run-stop.js';

/** What a run's jobs carry beside its id, kept so that a job queued again carries it too. */
export interface RunJobMeta {
  /** The run's tenant (fair scheduling, stats). */
  tenant?: string | undefined;
  /** The event log (and stop key) of the run's current continuation, when not the run id. */
  eventLogId?: string | undefined;
  /** Who the run acts for (`EnqueueOptions.owner`), told to the worker's agent factory. */
  owner?: string | undefined;
}

// Long enough for a paused run waiting for a person's approval; an older one is queued without them.
const META_TTL_MS = 30 * 86_400_000;

const metaKey = (runId: string) => `job:${runId}`;

/**
 * Keeps what `enqueue` or `decide` gave a run's job (tenant, event log id, owner) in the store's shared values:
 * an approval, a repeated decision or the stranded-run check queues the run again with them, instead
 * of losing the tenant (its stats and fairness) or the continuation's event log (its relays and `stop`).
 * Fields left undefined keep their stored value. A store without shared values keeps nothing.
 */
export async function saveRunJobMeta(store: Store, runId: string, meta: RunJobMeta): Promise<void> {
  if (!canRecordStop(store) || Object.keys(definedOf(meta)).length === 0) return;
  const key = metaKey(runId);
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await store.getValue!(key);
    const merged = { ...parseMeta(current.value), ...definedOf(meta) };
    const text = JSON.stringify(merged);
    if (text === current.value) return;
    if (await store.setValueIf!(key, current.version, text, { ttlMs: META_TTL_MS })) return;
  }
}

/** What `saveRunJobMeta` kept for `runId` (empty when nothing, or the store has no shared values). */
export async function readRunJobMeta(store: Store, runId: string): Promise<RunJobMeta> {
  if (!canRecordStop(store)) return {};
  return parseMeta((await store.getValue!(metaKey(runId))).value);
}

function definedOf(meta: RunJobMeta): RunJobMeta {
  return {
    ...(meta.tenant !== undefined && { tenant: meta.tenant }),
    ...(meta.eventLogId !== undefined && { eventLogId: meta.eventLogId }),
    ...(meta.owner !== undefined && { owner: meta.owner }),
  };
}

function parseMeta(value: string | undefined): RunJobMeta {
  if (value === undefined) return {};
  try {
    const parsed = JSON.parse(value) as RunJobMeta;
    return definedOf({
      ...(typeof parsed.tenant === 'string' && { tenant: parsed.tenant }),
      ...(typeof parsed.eventLogId === 'string' && { eventLogId: parsed.eventLogId }),
      ...(typeof parsed.owner === 'string' && { owner: parsed.owner }),
    });
  } catch {
    return {};
  }
}
