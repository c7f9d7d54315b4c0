import type { Redis, RedisOptions } from 'ioredis';
import type { Client, PoolConfig } from 'pg';
import { toAgentEventJson } from '../agent/agent-event-json.js';
import type { AgentEvent } from '../agent/events.js';
import { loadOptional } from '../stores/store-utils.js';
import type { NormalizedConnection } from './queue-connection.js';

/** Carries a run's events from the worker running it to any process following it. */
export interface EventBus {
  /** Sends one event of `runId` (in order with the other events sent through this bus). */
  publish(runId: string, event: AgentEvent): Promise<void>;
  /** Calls `listener` with each event of `runId` from now on; answers the unsubscribe function. */
  subscribe(runId: string, listener: (event: AgentEvent) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

// PostgreSQL refuses NOTIFY payloads of 8000 bytes or more.
const MAX_NOTIFY_BYTES = 7900;

/**
 * An event as JSON (`toAgentEventJson`): errors become `{ name, message }` with secrets masked (never
 * their causes or state), also inside a sub-agent's forwarded events.
 */
export function encodeEvent(event: AgentEvent): string {
  return JSON.stringify(toAgentEventJson(event));
}

/** A bus on Redis pub/sub (one channel per run) or PostgreSQL LISTEN/NOTIFY (one channel per queue). */
export function createEventBus(connection: NormalizedConnection, queueName: string): EventBus {
  return connection.kind === 'redis'
    ? redisBus(connection.options, `svc-agents:${queueName}:events:`)
    : postgresBus(connection.config, `svc_agents_events_${channelSuffix(queueName)}`);
}

function redisBus(options: RedisOptions, prefix: string): EventBus {
  let publisher: Promise<Redis> | undefined;
  let subscriber: Promise<Redis> | undefined;
  const listeners = new Map<string, Set<(event: AgentEvent) => void>>();
  const connect = async () => {
    const { Redis } = await loadOptional('ioredis', () => import('ioredis'), 'svc-agents/queue events');
    return new Redis(options);
  };
  return {
    async publish(runId, event) {
      publisher ??= connect();
      await (await publisher).publish(prefix + runId, encodeEvent(event));
    },
    async subscribe(runId, listener) {
      subscriber ??= connect().then((redis) => {
        redis.on('message', (channel: string, message: string) => {
          for (const each of listeners.get(channel) ?? []) each(JSON.parse(message) as AgentEvent);
        });
        return redis;
      });
      const redis = await subscriber;
      const channel = prefix + runId;
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        await redis.subscribe(channel);
      }
      set.add(listener);
      return async () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(channel) === set) {
          listeners.delete(channel);
          await redis.unsubscribe(channel);
        }
      };
    },
    async close() {
      await Promise.all(
        [publisher, subscriber].map(async (client) => {
          if (client) await (await client).quit().catch(() => undefined);
        }),
      );
      publisher = subscriber = undefined;
    },
  };
}

function postgresBus(config: PoolConfig, channel: string): EventBus {
  let publisher: Promise<Client> | undefined;
  let subscriber: Promise<Client> | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  const listeners = new Map<string, Set<(event: AgentEvent) => void>>();
  const connect = async () => {
    const pg = await loadOptional('pg', () => import('pg'), 'svc-agents/queue events');
    const client = new pg.default.Client(config);
    await client.connect();
    // A dropped connection must not crash the process: the bus is best-effort, the store is the truth.
    client.on('error', () => undefined);
    return client;
  };
  return {
    async publish(runId, event) {
      publisher ??= connect();
      let payload = JSON.stringify({ runId, event: JSON.parse(encodeEvent(event)) });
      if (Buffer.byteLength(payload) > MAX_NOTIFY_BYTES) {
        payload = JSON.stringify({ runId, event: { type: event.type, truncated: true } });
      }
      // One client, one query at a time: NOTIFYs go out in the order they were sent.
      const client = await publisher;
      const sent = chain.then(() => client.query('SELECT pg_notify($1, $2)', [channel, payload]));
      chain = sent.catch(() => undefined);
      await sent;
    },
    async subscribe(runId, listener) {
      subscriber ??= connect().then(async (client) => {
        client.on('notification', (message) => {
          if (message.channel !== channel || !message.payload) return;
          const { runId: id, event } = JSON.parse(message.payload) as { runId: string; event: AgentEvent };
          for (const each of listeners.get(id) ?? []) each(event);
        });
        await client.query(`LISTEN "${channel}"`);
        return client;
      });
      await subscriber;
      let set = listeners.get(runId);
      if (!set) {
        set = new Set();
        listeners.set(runId, set);
      }
      set.add(listener);
      return async () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(runId) === set) listeners.delete(runId);
      };
    },
    async close() {
      // Send what was published before closing: ending the client under a pending NOTIFY rejects it.
      await chain;
      // Send what was published before closing: ending the client under a pending NOTIFY rejects it.
      await chain;
      await Promise.all(
        [publisher, subscriber].map(async (client) => {
          if (client) await (await client).end().catch(() => undefined);
        }),
      );
      publisher = subscriber = undefined;
    },
  };
}

// Channel names are identifiers (at most 63 bytes): a short stable suffix of the queue name.
function channelSuffix(name: string): string {
  let hash = 0;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0;
  return `${name.replace(/[^a-z0-9_]/gi, '_').slice(0, 24)}_${hash.toString(36)}`;
}
