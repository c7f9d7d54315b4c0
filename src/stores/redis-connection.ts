import type { Redis, RedisOptions } from 'ioredis';
import { loadOptional } from '../core/load-module.js';
import { redisAddress, waitForRedis } from './first-connect.js';

/** What `RedisConnection` needs from `redisStore`'s options. */
export interface RedisConnectionOptions {
  /** `redis://host:port/db`. */
  url: string | undefined;
  /** ioredis options, when not given a `url`. */
  options: RedisOptions | undefined;
  /** A client the caller owns (never closed here). */
  client: Redis | undefined;
  /** Each command's timeout, and the connect timeout of a client opened here. */
  commandTimeoutMs: number;
  /** The bound on the first connection. */
  connectTimeoutMs: number;
  /** Receives the first connection error of a client opened here. */
  onWarning: (message: string) => void;
  /** Runs on each new client before its first command (the store's layout migration). */
  prepare: (redis: Redis) => Promise<void>;
}

/**
 * `redisStore`'s client: opened (or the caller's taken) on first use and prepared once, opened again on the
 * next operation after a failed connect, replaced when a command times out on a half-open connection, and
 * closed (when owned) on `close()`. It also opens the second connection pub/sub needs.
 */
export class RedisConnection {
  readonly #options: RedisConnectionOptions;
  #clientPromise: Promise<Redis> | undefined;
  #opened: Redis | undefined;
  #warnedAboutConnection = false;
  #everReady = false;

  constructor(options: RedisConnectionOptions) {
    this.#options = options;
  }

  /** The prepared client, connecting first when there is none. */
  client(): Promise<Redis> {
    this.#clientPromise ??= this.#connect();
    this.#clientPromise.catch(() => {
      this.#clientPromise = undefined;
    });
    return this.#clientPromise;
  }

  /** A new connection for pub/sub (a duplicate of the caller's client when given one); it resubscribes itself. */
  async openSubscriber(): Promise<Redis> {
    const { client, url, options } = this.#options;
    if (client) return client.duplicate({ autoResubscribe: false });
    const { Redis } = await loadOptional('ioredis', () => import('ioredis'), 'redisStore');
    const defaults = { ...this.#clientDefaults(), autoResubscribe: false };
    return url ? new Redis(url, defaults) : new Redis({ ...defaults, ...options, autoResubscribe: false });
  }

  /**
   * After a failed command: one that failed while the connection looked ready timed out, so the connection
   * may be half-open (no reset will ever come) and is replaced rather than trusted with the next command.
   */
  replaceIfHalfOpen(error: unknown): void {
    const current = this.#options.client === undefined ? this.#opened : undefined;
    if (
      current?.status === 'ready' &&
      !(error instanceof Error && error.name === 'MaxRetriesPerRequestError')
    ) {
      current.disconnect(true);
    }
  }

  /** Closes the client opened here (the caller's stays open). */
  async close(): Promise<void> {
    const current = this.#clientPromise;
    this.#clientPromise = undefined;
    if (this.#options.client !== undefined || !current) return;
    const redis = await current.catch(() => undefined);
    if (!redis) return;
    // quit waits for the replies still due; a client that cannot reach Redis is cut instead.
    if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
    else redis.disconnect();
  }

  #clientDefaults(): RedisOptions {
    const { commandTimeoutMs } = this.#options;
    return { commandTimeout: commandTimeoutMs, connectTimeout: commandTimeoutMs, keepAlive: 30_000 };
  }

  async #connect(): Promise<Redis> {
    const { url, options, onWarning, connectTimeoutMs, prepare } = this.#options;
    let redis = this.#options.client;
    if (!redis) {
      const { Redis } = await loadOptional('ioredis', () => import('ioredis'), 'redisStore');
      const defaults = this.#clientDefaults();
      redis = url ? new Redis(url, defaults) : new Redis({ ...defaults, ...options });
      this.#opened = redis;
      // ioredis reconnects by itself; without a listener each failed attempt is printed as unhandled.
      redis.on('error', (error: Error) => {
        if (this.#warnedAboutConnection) return;
        this.#warnedAboutConnection = true;
        onWarning(`redisStore: connection error, reconnecting (${error.message})`);
      });
      // Bounded once: a store that never connected gives up, naming the address, and the next operation
      // starts a new client.
      if (!this.#everReady) await waitForRedis(redis, redisAddress(redis.options), connectTimeoutMs);
      this.#everReady = true;
    }
    await prepare(redis);
    return redis;
  }
}
