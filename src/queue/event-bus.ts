import type { Redis, RedisOptions } from 'ioredis';
import type { Client, Notification, PoolConfig } from 'pg';
import { toAgentEventJson } from '../agent/agent-event-json.js';
import type { AgentEvent } from '../agent/events.js';
import { loadOptional } from '../core/load-module.js';
import type { NormalizedConnection } from './queue-connection.js';
import { EventBusUnavailableError } from './queue-errors.js';

/** Carries a run's events from the worker running it to any process following it. */
export interface EventBus {
  /** Sends one event of `runId` (in order with the other events sent through this bus). */
  publish(runId: string, event: AgentEvent): Promise<void>;
  /**
   * Calls `listener` with each event of `runId` from now on; answers the unsubscribe function. Events
   * sent while the bus's connection was down are lost: `onReconnect` is called once it listens again, so
   * the follower can read the run's record.
   */
  subscribe(
    runId: string,
    listener: (event: AgentEvent) => void,
    onReconnect?: () => void,
  ): Promise<() => Promise<void>>;
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

/**
 * A bus on Redis pub/sub (one channel per run) or PostgreSQL LISTEN/NOTIFY (one channel per queue). Each
 * publish and subscribe is bounded by `timeoutMs` (ioredis `commandTimeout`, pg `query_timeout`): on a
 * half-open connection it fails with `EventBusUnavailableError` instead of hanging `queue.stop`, a
 * follower or a closing worker.
 */
export function createEventBus(
  connection: NormalizedConnection,
  queueName: string,
  timeoutMs = DEFAULT_BUS_TIMEOUT_MS,
): EventBus {
  const bus =
    connection.kind === 'redis'
      ? redisBus(
          {
            ...connection.options,
            commandTimeout: timeoutMs,
            connectTimeout: connection.options.connectTimeout ?? timeoutMs,
          },
          `svc-agents:${queueName}:events:`,
        )
      : postgresBus(
          { connectionTimeoutMillis: timeoutMs, ...connection.config, query_timeout: timeoutMs },
          `svc_agents_events_${channelSuffix(queueName)}`,
        );
  const typed = (runId: string, operation: 'publish' | 'subscribe') => (cause: unknown) => {
    throw new EventBusUnavailableError({ runId, operation, timeoutMs, cause });
  };
  return {
    publish: (runId, event) => bus.publish(runId, event).catch(typed(runId, 'publish')),
    subscribe: (runId, listener, onReconnect) =>
      bus.subscribe(runId, listener, onReconnect).catch(typed(runId, 'subscribe')),
    close: () => bus.close(),
  };
}

/** How long one call of the event bus may take by default. */
const DEFAULT_BUS_TIMEOUT_MS = 10_000;

function redisBus(options: RedisOptions, prefix: string): EventBus {
  let publisher: Promise<Redis> | undefined;
  let subscriber: Promise<Redis> | undefined;
  const listeners = new Map<string, Set<(event: AgentEvent) => void>>();
  const reconnectListeners = new Set<() => void>();
  const connect = async () => {
    const { Redis } = await loadOptional('ioredis', () => import('ioredis'), 'svc-agents/queue events');
    const redis = new Redis(options);
    // ioredis reconnects (and subscribes again) by itself; an error listener keeps a drop from being
    // reported as unhandled.
    redis.on('error', () => undefined);
    return redis;
  };
  return {
    async publish(runId, event) {
      publisher ??= connect();
      await (await publisher).publish(prefix + runId, encodeEvent(event));
    },
    async subscribe(runId, listener, onReconnect) {
      subscriber ??= connect().then((redis) => {
        redis.on('message', (channel: string, message: string) => {
          for (const each of listeners.get(channel) ?? []) each(JSON.parse(message) as AgentEvent);
        });
        let connected = false;
        redis.on('ready', () => {
          if (connected) for (const each of reconnectListeners) each();
          connected = true;
        });
        if (redis.status === 'ready') connected = true;
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
      if (onReconnect) reconnectListeners.add(onReconnect);
      return async () => {
        set.delete(listener);
        if (onReconnect) reconnectListeners.delete(onReconnect);
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

// Backoff between attempts to get the LISTEN connection back.
const RECONNECT_DELAYS_MS = [100, 250, 500, 1_000, 2_000, 5_000];

function postgresBus(config: PoolConfig, channel: string): EventBus {
  // The bus's own connections are named, so an operator (or a test) can tell them from the store's.
  const clientConfig = { ...config, application_name: `${config.application_name ?? 'svc-agents'}-events` };
  let publisher: Promise<Client> | undefined;
  let subscriber: Promise<Client> | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  let closed = false;
  const listeners = new Map<string, Set<(event: AgentEvent) => void>>();
  const reconnectListeners = new Set<() => void>();

  const connect = async (onLost: (client: Client) => void) => {
    const pg = await loadOptional('pg', () => import('pg'), 'svc-agents/queue events');
    const client = new pg.default.Client(clientConfig);
    // A dropped connection must not crash the process: it is replaced (the store holds the truth).
    client.on('error', () => onLost(client));
    client.on('end', () => onLost(client));
    try {
      await client.connect();
    } catch (error) {
      client.end().catch(() => undefined);
      throw error;
    }
    return client;
  };

  const connectPublisher = () => {
    const client = connect((lost) => {
      if (publisher === client) publisher = undefined;
      lost.end().catch(() => undefined);
    });
    client.catch(() => {
      if (publisher === client) publisher = undefined;
    });
    return client;
  };

  const onNotification = (message: Notification) => {
    if (message.channel !== channel || !message.payload) return;
    const { runId: id, event } = JSON.parse(message.payload) as { runId: string; event: AgentEvent };
    for (const each of listeners.get(id) ?? []) each(event);
  };

  const connectSubscriber = (): Promise<Client> => {
    let listening = false;
    const client: Promise<Client> = connect((lost) => {
      lost.end().catch(() => undefined);
      if (subscriber === client) subscriber = undefined;
      // A connection lost while it was being set up fails its `listen()`, which tries again itself.
      if (listening && !closed) void relisten();
    }).then(async (connected) => {
      connected.on('notification', onNotification);
      await connected.query(`LISTEN "${channel}"`);
      listening = true;
      return connected;
    });
    client.catch(() => {
      if (subscriber === client) subscriber = undefined;
    });
    return client;
  };

  // The LISTEN connection, connecting it (a few tries) when there is none.
  const listen = async (): Promise<Client> => {
    for (let attempt = 0; ; attempt++) {
      subscriber ??= connectSubscriber();
      const current = subscriber;
      try {
        return await current;
      } catch (error) {
        if (closed || attempt >= RECONNECT_DELAYS_MS.length - 1) throw error;
        await sleep(RECONNECT_DELAYS_MS[attempt]!);
      }
    }
  };

  // Gets the LISTEN connection back after a drop, for as long as the bus is open, then tells the
  // followers (events sent meanwhile were missed).
  const relisten = async () => {
    for (let attempt = 0; !closed; attempt++) {
      await sleep(RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)]!);
      if (closed) return;
      try {
        await listen();
      } catch {
        continue;
      }
      for (const each of reconnectListeners) each();
      return;
    }
  };

  return {
    async publish(runId, event) {
      let payload = JSON.stringify({ runId, event: JSON.parse(encodeEvent(event)) });
      if (Buffer.byteLength(payload) > MAX_NOTIFY_BYTES) {
        payload = JSON.stringify({ runId, event: { type: event.type, truncated: true } });
      }
      // One client, one query at a time: NOTIFYs go out in the order they were sent.
      const sent = chain.then(async () => {
        publisher ??= connectPublisher();
        const client = publisher;
        try {
          await (await client).query('SELECT pg_notify($1, $2)', [channel, payload]);
        } catch (error) {
          // A timed-out connection may be half-open: the next NOTIFY goes on a new one.
          if (publisher === client) publisher = undefined;
          client.then((lost) => lost.end()).catch(() => undefined);
          throw error;
        }
      });
      chain = sent.catch(() => undefined);
      await sent;
    },
    async subscribe(runId, listener, onReconnect) {
      await listen();
      let set = listeners.get(runId);
      if (!set) {
        set = new Set();
        listeners.set(runId, set);
      }
      set.add(listener);
      if (onReconnect) reconnectListeners.add(onReconnect);
      return async () => {
        set.delete(listener);
        if (onReconnect) reconnectListeners.delete(onReconnect);
        if (set.size === 0 && listeners.get(runId) === set) listeners.delete(runId);
      };
    },
    async close() {
      closed = true;
      // Send what was published before closing: ending the client under a pending NOTIFY rejects it.
      await chain;
      await Promise.all(
        [publisher, subscriber].map(async (client) => {
          const connected = await client?.catch(() => undefined);
          await connected?.end().catch(() => undefined);
        }),
      );
      publisher = subscriber = undefined;
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Channel names are identifiers (at most 63 bytes): a short stable suffix of the queue name.
function channelSuffix(name: string): string {
  let hash = 0;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0;
  return `${name.replace(/[^a-z0-9_]/gi, '_').slice(0, 24)}_${hash.toString(36)}`;
}
