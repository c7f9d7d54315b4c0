import type { Redis } from 'ioredis';
import type { RunEventLogStore, SharedValueStore, StoredRunEvent } from '../agent/durable/store.js';
import { evalScript } from './eval-script.js';
import { APPEND_RUN_EVENTS, APPEND_RUN_EVENTS_AND_PUBLISH, SET_VALUE_IF } from './redis-scripts.js';
import { redisSignalChannel } from './redis-signals.js';
import type { AppendAndSignal } from './run-events-signal.js';
import {
  checkAppendRunEvents,
  checkGetValue,
  checkReadRunEvents,
  checkSetValueIf,
  checkSignal,
} from './shared-state-checks.js';
import { RunEventGapError } from './store-errors.js';

/** What the event logs and values need from `redisStore`. */
export interface RedisSharedStateOptions {
  /** The store's commands connection. */
  client: () => Promise<Redis>;
  /** The store's key prefix. */
  prefix: string;
}

/**
 * Event logs as Redis lists (`<prefix>events:<runId>`, appended by one Lua script that checks the length,
 * skips the ids already stored and refreshes the expiry) and values as hashes `{version, value}`
 * (`<prefix>value:<key>`, compare-and-set by a Lua script). Redis expires both itself, so an expired one
 * is simply absent.
 */
export function createRedisSharedState({
  client,
  prefix,
}: RedisSharedStateOptions): RunEventLogStore &
  SharedValueStore & { appendRunEventsAndSignal: AppendAndSignal } {
  const eventsKey = (runId: string) => `${prefix}events:${runId}`;
  const valueKey = (key: string) => `${prefix}value:${key}`;
  return {
    async appendRunEvents(runId, firstId, events, appendOptions) {
      const ttlMs = checkAppendRunEvents(runId, firstId, events, appendOptions);
      const redis = await client();
      const length = (await evalScript(
        redis,
        APPEND_RUN_EVENTS,
        1,
        eventsKey(runId),
        String(firstId),
        ttlMs === undefined ? '' : String(ttlMs),
        ...events,
      )) as number;
      if (length < 0) throw new RunEventGapError({ runId, firstId, nextId: -1 - length });
    },
    // The append and its signal's PUBLISH in one script: one round trip per batch (bench/web-relay).
    async appendRunEventsAndSignal(runId, firstId, events, appendOptions, signal) {
      const ttlMs = checkAppendRunEvents(runId, firstId, events, appendOptions);
      checkSignal(signal.channel, signal.message);
      const redis = await client();
      const length = (await evalScript(
        redis,
        APPEND_RUN_EVENTS_AND_PUBLISH,
        1,
        eventsKey(runId),
        String(firstId),
        ttlMs === undefined ? '' : String(ttlMs),
        redisSignalChannel(prefix, signal.channel),
        signal.message,
        ...events,
      )) as number;
      if (length < 0) throw new RunEventGapError({ runId, firstId, nextId: -1 - length });
    },
    async readRunEvents(runId, afterId, limit) {
      checkReadRunEvents(runId, afterId, limit);
      const redis = await client();
      const start = afterId === undefined ? 0 : afterId + 1;
      const data = await redis.lrange(eventsKey(runId), start, limit === undefined ? -1 : start + limit - 1);
      return data.map((event, index): StoredRunEvent => ({ id: start + index, data: event }));
    },
    async getValue(key) {
      checkGetValue(key);
      const redis = await client();
      const [version, value] = await redis.hmget(valueKey(key), 'version', 'value');
      return version === null || version === undefined
        ? { value: undefined, version: 0 }
        : { value: value ?? undefined, version: Number(version) };
    },
    async setValueIf(key, version, value, valueOptions) {
      const ttlMs = checkSetValueIf(key, version, value, valueOptions);
      const redis = await client();
      const written = await evalScript(
        redis,
        SET_VALUE_IF,
        1,
        valueKey(key),
        String(version),
        value === undefined ? '1' : '0',
        value ?? '',
        ttlMs === undefined ? '' : String(ttlMs),
      );
      return written === 1;
    },
  };
}
