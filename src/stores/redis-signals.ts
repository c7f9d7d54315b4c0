import type { Redis } from 'ioredis';
import type { SignalStore } from '../agent/durable/store.js';
import { checkOnSignal, checkSignal, deliverSignal } from './shared-state-input.js';

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
  onWarning,
}: RedisSignalsOptions): RedisSignals {
  const listeners = new Map<string, Set<(message: string) => void>>();
  let subscriber: Promise<Redis> | undefined;
  let opened: Redis | undefined;
  const channelOf = (channel: string) => `${prefix}signal:${channel}`;
  const nameOf = (redisChannel: string) => redisChannel.slice(prefix.length + 'signal:'.length);

  const connect = async (): Promise<Redis> => {
    const redis = await openSubscriber();
    opened = redis;
    redis.on('message', (redisChannel: string, message: string) => {
      const channel = nameOf(redisChannel);
      const current = listeners.get(channel);
      if (current) deliverSignal(current, channel, message, onWarning);
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
      const channels = [...listeners.keys()].map(channelOf);
      if (channels.length === 0) return;
      redis.subscribe(...channels).catch((error: Error) => {
        onWarning(`redisStore: subscribing again after a reconnect failed (${error.message})`);
        // The next drop and ready tries again; a half-open connection is replaced now.
        redis.disconnect(true);
      });
    });
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
      const own = (message: string) => listener(message);
      let set = listeners.get(channel);
      if (!set) {
        set = new Set([own]);
        listeners.set(channel, set);
        try {
          await redis.subscribe(channelOf(channel));
        } catch (error) {
          set.delete(own);
          if (set.size === 0 && listeners.get(channel) === set) listeners.delete(channel);
          throw error;
        }
      } else {
        set.add(own);
      }
      const subscribed = set;
      return async () => {
        subscribed.delete(own);
        if (subscribed.size > 0 || listeners.get(channel) !== subscribed) return;
        listeners.delete(channel);
        // A connection that is down forgets the channel anyway: it is not subscribed again on `ready`.
        await redis.unsubscribe(channelOf(channel)).catch(() => undefined);
      };
    },
    async close() {
      listeners.clear();
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
