import type { Notification, Pool, PoolClient } from 'pg';
import type { SignalStore } from '../agent/durable/store.js';
import { CallBatcher } from './call-batcher.js';
import { checkOnSignal, checkSignal } from './shared-state-checks.js';
import { SignalListeners } from './signal-listeners.js';
import { signalHealthCheckEveryMs } from './store-utils.js';

/** `SignalStore` on PostgreSQL LISTEN/NOTIFY, plus `close` for its listening connection. */
export interface PostgresSignals extends SignalStore {
  /** Stops listening and closes the listening connection. */
  close(): Promise<void>;
}

/** What `createPostgresSignals` needs from its store. */
export interface PostgresSignalsOptions {
  /** The store's pool (migrated): NOTIFY goes through it, and the listening connection is taken from it. */
  pool: () => Promise<Pool>;
  /** The store's schema name: the PostgreSQL channel is derived from it. */
  schemaName: string;
  /** The store's operation timeout: it bounds and paces the listening connection's health check. */
  commandTimeoutMs: number;
  onWarning: (message: string) => void;
}

/** The listening connection and how to end it. */
interface Listener {
  client: PoolClient;
  /** Destroys the connection; false when it already was. */
  destroy(error?: Error): boolean;
  /** Destroys it and, unless the store is closed, starts listening on a new one. */
  lose(error?: Error): void;
}

// Backoff between attempts to get the listening connection back.
const RECONNECT_DELAYS_MS = [100, 250, 500, 1_000, 2_000, 5_000];

/** The PostgreSQL channel of a store's schema: an identifier of at most 63 bytes, stable per schema. */
export function signalChannelOf(schemaName: string): string {
  let hash = 0;
  for (const char of schemaName) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0;
  return `svc_agents_signals_${schemaName.replace(/[^a-z0-9_]/gi, '_').slice(0, 24)}_${hash.toString(36)}`;
}

/** A NOTIFY payload: the channel's length, `:`, the channel, the message (nothing escaped, so sizes add up). */
export function encodeSignal(channel: string, message: string): string {
  return `${channel.length}:${channel}${message}`;
}

/** The channel and message of a payload `encodeSignal` wrote, or undefined for anything else. */
export function decodeSignal(payload: string): { channel: string; message: string } | undefined {
  const colon = payload.indexOf(':');
  const prefix = payload.slice(0, colon);
  const length = Number(prefix);
  if (!/^[0-9]{1,4}$/.test(prefix) || length < 1 || colon + 1 + length > payload.length) return undefined;
  return {
    channel: payload.slice(colon + 1, colon + 1 + length),
    message: payload.slice(colon + 1 + length),
  };
}

/**
 * Signals on LISTEN/NOTIFY: every store of a schema LISTENs on one PostgreSQL channel, and the payload
 * names the signal's channel. The store holds one connection of its pool for LISTEN, taken on the first
 * `onSignal`; when it drops (or fails its periodic health check) it is destroyed and replaced, with
 * backoff, for as long as the store is open, then LISTENs again. Signals sent meanwhile are lost, as the
 * interface says. `close()` destroys it rather than handing a LISTENing connection back to the pool.
 */
export function createPostgresSignals({
  pool,
  schemaName,
  commandTimeoutMs,
  onWarning,
}: PostgresSignalsOptions): PostgresSignals {
  const pgChannel = signalChannelOf(schemaName);
  const listeners = new SignalListeners(onWarning);
  let listening: Promise<Listener> | undefined;
  let closed = false;
  let reconnecting = false;
  let healthCheck: NodeJS.Timeout | undefined;

  const onNotification = (notification: Notification) => {
    if (notification.channel !== pgChannel || notification.payload === undefined) return;
    const decoded = decodeSignal(notification.payload);
    if (decoded) listeners.deliver(decoded.channel, decoded.message);
  };

  const connect = (): Promise<Listener> => {
    const made: Promise<Listener> = (async () => {
      const client = await (await pool()).connect();
      let lost = false;
      // Destroys the connection (never handed back to the pool while it LISTENs), once.
      const destroy = (error?: Error) => {
        if (lost) return false;
        lost = true;
        client.removeListener('notification', onNotification);
        client.release(error ?? true);
        if (listening === made) listening = undefined;
        return true;
      };
      // The connection is the store's until it drops: a drop destroys it and starts a new one.
      const lose = (error?: Error) => {
        if (!destroy(error ?? new Error('the signal connection ended')) || closed) return;
        onWarning(
          `postgresStore: the signal connection was lost, listening again (${error?.message ?? 'ended'})`,
        );
        void relisten();
      };
      client.on('error', lose);
      client.on('end', () => lose());
      client.on('notification', onNotification);
      try {
        await client.query({ text: `LISTEN "${pgChannel}"`, query_timeout: commandTimeoutMs } as never);
      } catch (error) {
        destroy(error as Error);
        throw error;
      }
      const listener = { client, destroy, lose };
      if (closed) destroy();
      return listener;
    })();
    made.catch(() => {
      if (listening === made) listening = undefined;
    });
    return made;
  };

  const listen = () => {
    listening ??= connect();
    healthCheck ??= setInterval(() => void checkHealth(), signalHealthCheckEveryMs(commandTimeoutMs)).unref();
    return listening;
  };

  // A connection that stopped answering (half-open: no reset ever comes) is replaced.
  const checkHealth = async () => {
    const current = await listening?.catch(() => undefined);
    if (!current || closed) return;
    try {
      await current.client.query({ text: 'SELECT 1', query_timeout: commandTimeoutMs } as never);
    } catch (error) {
      current.lose(error as Error);
    }
  };

  // Gets the listening connection back after a drop, for as long as the store is open.
  const relisten = async () => {
    if (reconnecting) return;
    reconnecting = true;
    try {
      for (let attempt = 0; !closed; attempt++) {
        await new Promise((resolve) =>
          setTimeout(resolve, RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)]),
        );
        if (closed) return;
        try {
          await listen();
          return;
        } catch {
          // Tried again after the next delay.
        }
      }
    } finally {
      reconnecting = false;
    }
  };

  // Signals sent while one NOTIFY statement is in flight go together in the next: one transaction, and
  // one turn of PostgreSQL's commit-time notify lock, for many (bench/web-relay). One lane keeps them in
  // the order sent; a payload sent twice goes in two statements, since PostgreSQL folds identical
  // notifications of one transaction into one.
  const notifications = new CallBatcher<string, void>(
    async (payloads) => {
      await (await pool()).query({
        text: 'SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload',
        values: [pgChannel, payloads],
        query_timeout: commandTimeoutMs,
      } as never);
      return payloads.map(() => undefined);
    },
    { lanes: 1, maxBatch: 500, keyOf: (payload) => payload },
  );

  return {
    async signal(channel, message) {
      checkSignal(channel, message);
      await notifications.submit(encodeSignal(channel, message));
    },
    async onSignal(channel, listener) {
      checkOnSignal(channel, listener);
      await listen();
      const { remove } = listeners.add(channel, listener);
      return async () => {
        remove();
      };
    },
    async close() {
      closed = true;
      listeners.clear();
      if (healthCheck) clearInterval(healthCheck);
      healthCheck = undefined;
      const current = await listening?.catch(() => undefined);
      listening = undefined;
      current?.destroy();
    },
  };
}
