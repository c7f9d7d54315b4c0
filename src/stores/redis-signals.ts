import type { Redis } from 'ioredis';
import type { SignalStore } from '../agent/durable/store.js';
import { checkOnSignal, checkSignal } from './shared-state-checks.js';
import { SignalListeners } from './signal-listeners.js';
import { signalHealthCheckEveryMs } from './store-utils.js';

/** The Redis channel a store with key prefix `prefix` publishes signal channel `channel` on. */
export function redisSignalChannel(prefix: string, channel: string): string {
  return `${prefix}signal:${channel}`;
}

/** `SignalStore` on Redis pub/sub, plus `close` for its subscriber connection. */
export interface RedisSignals extends SignalStore {
  /** Closes the subscriber connection (the commands connection is the store's). */
  close(): Promise<void>;
}

/** What `createRedisSignals` needs from its store. */
export interface RedisSignalsOptions {
  /** The store's commands connection, for PUBLISH. */
  client: () => Promise<Redis>;
  /** Opens the dedicated subscriber connection (a connection in subscriber mode runs no other command). */
  openSubscriber: () => Promise<Redis>;
  /** The store's key prefix: channel `c` is published as `<prefix>signal:c`. */
  prefix: string;
  /** The store's operation timeout: it paces the subscriber's health check. */
  commandTimeoutMs: number;
  onWarning: (message: string) => void;
}

/**
 * Signals on Redis pub/sub. The subscriber connection is opened on the first `onSignal` and is the
 * store's own; after a reconnect it subscribes again to every channel that still has a listener (the
 * store does this itself, on `ready`, rather than trusting the client's option), so later signals arrive.
 * Signals published while it was down are lost, as the interface says.
 */
export function createRedisSignals({
  client,
  openSubscriber,
  prefix,
  commandTimeoutMs,
  onWarning,
}: RedisSignalsOptions): RedisSignals {
  const listeners = new SignalListeners(onWarning);
  // The SUBSCRIBE of each channel with listeners: a later listener waits for it too.
  const subscribing = new Map<string, Promise<unknown>>();
  let subscriber: Promise<Redis> | undefined;
  let opened: Redis | undefined;
  let healthCheck: NodeJS.Timeout | undefined;
  const channelOf = (channel: string) => redisSignalChannel(prefix, channel);
  const nameOf = (redisChannel: string) => redisChannel.slice(prefix.length + 'signal:'.length);

  const connect = async (): Promise<Redis> => {
    const redis = await openSubscriber();
    opened = redis;
    redis.on('message', (redisChannel: string, message: string) => {
      listeners.deliver(nameOf(redisChannel), message);
    });
    let warned = false;
    redis.on('error', (error: Error) => {
      if (warned) return;
      warned = true;
      onWarning(`redisStore: signal subscriber connection error, reconnecting (${error.message})`);
    });
    let readyOnce = redis.status === 'ready';
    redis.on('ready', () => {
      if (!readyOnce) {
        readyOnce = true;
        return;
      }
      warned = false;
      const names = listeners.channels().map(channelOf);
      if (names.length === 0) return;
      redis.subscribe(...names).catch((error: Error) => {
        onWarning(`redisStore: subscribing again after a reconnect failed (${error.message})`);
        // The next drop and ready tries again; a half-open connection is replaced now.
        redis.disconnect(true);
      });
    });
    // A half-open connection never reports an error itself: a PING that times out (commandTimeout)
    // replaces it, and the `ready` above subscribes the new one again.
    healthCheck = setInterval(() => {
      if (redis.status !== 'ready') return;
      redis.ping().catch(() => {
        if (redis.status === 'ready') redis.disconnect(true);
      });
    }, signalHealthCheckEveryMs(commandTimeoutMs)).unref();
    try {
      await untilReady(redis, commandTimeoutMs);
    } catch (error) {
      clearInterval(healthCheck);
      redis.disconnect();
      throw error;
    }
    return redis;
  };
  const subscriberConnection = () => {
    subscriber ??= connect();
    subscriber.catch(() => {
      subscriber = undefined;
    });
    return subscriber;
  };

  return {
    async signal(channel, message) {
      checkSignal(channel, message);
      await (await client()).publish(channelOf(channel), message);
    },
    async onSignal(channel, listener) {
      checkOnSignal(channel, listener);
      const redis = await subscriberConnection();
      const { first, remove } = listeners.add(channel, listener);
      if (first) subscribing.set(channel, redis.subscribe(channelOf(channel)));
      // A second listener of a channel being subscribed waits for it too, so it misses nothing after this.
      try {
        await subscribing.get(channel);
      } catch (error) {
        if (remove()) subscribing.delete(channel);
        throw error;
      }
      return async () => {
        if (!remove()) return;
        subscribing.delete(channel);
        // A connection that is down forgets the channel anyway: it is not subscribed again on `ready`.
        await redis.unsubscribe(channelOf(channel)).catch(() => undefined);
      };
    },
    async close() {
      listeners.clear();
      subscribing.clear();
      if (healthCheck) clearInterval(healthCheck);
      healthCheck = undefined;
      const current = subscriber;
      subscriber = undefined;
      const redis = opened ?? (await current?.catch(() => undefined));
      opened = undefined;
      if (!redis) return;
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}

/**
 * Waits until `redis` is ready. ioredis writes a SUBSCRIBE at once while the connection is still being
 * checked (its ready check's INFO is then refused: "Connection in subscriber mode"), so no channel is
 * subscribed before the connection is ready. Bounded by the store's timeout.
 */
async function untilReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  if (redis.status === 'wait') redis.connect().catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      redis.off('ready', ready);
      redis.off('end', ended);
      if (error) reject(error);
      else resolve();
    };
    const ready = () => done();
    const ended = () => done(new Error('Connection is closed.'));
    const timer = setTimeout(() => done(new Error(`Command timed out`)), timeoutMs);
    redis.on('ready', ready);
    redis.on('end', ended);
  });
}
