import type { Redis, RedisOptions } from 'ioredis';
import type { PoolConfig } from 'pg';
import { loadOptional } from '../core/load-module.js';
import { BackendUnreachableError } from './store-errors.js';

// The first connection to Redis or PostgreSQL is bounded: a wrong address or a service that is down fails
// within `timeoutMs`, naming the address and the cause, instead of the drivers' silent retries forever.
// Only the first one: a connection lost after a success is the drivers' to retry, as before.

/** `host:port` of ioredis options, without credentials. */
export function redisAddress(options: RedisOptions): string {
  if (options.path) return options.path;
  return `${options.host ?? '127.0.0.1'}:${options.port ?? 6379}`;
}

/** `host:port/database` of a pg config, without credentials. */
export function postgresAddress(config: PoolConfig): string {
  let { host, port, database } = config;
  if (config.connectionString) {
    try {
      const url = new URL(config.connectionString);
      host = url.hostname || host;
      port = url.port ? Number(url.port) : port;
      database = url.pathname.slice(1) || database;
    } catch {
      // Not a URL (a key=value string): pg reads it; the address stays the config's.
    }
  }
  return `${host ?? 'localhost'}:${port ?? 5432}${database ? `/${database}` : ''}`;
}

/**
 * Waits until an ioredis client is ready, for at most `timeoutMs`; then disconnects it (it would retry
 * forever) and rejects with a `BackendUnreachableError` carrying the last connection error.
 */
export function waitForRedis(redis: Redis, address: string, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    let last: unknown;
    const onError = (error: unknown) => {
      last = error;
    };
    const done = () => {
      clearTimeout(timer);
      redis.off('error', onError);
      redis.off('ready', onReady);
    };
    const onReady = () => {
      done();
      resolve();
    };
    const timer = setTimeout(() => {
      done();
      redis.disconnect();
      reject(new BackendUnreachableError({ backend: 'Redis', address, timeoutMs, cause: last }));
    }, timeoutMs);
    redis.on('error', onError);
    redis.once('ready', onReady);
  });
}

/** Connects once to Redis with `options` and closes again: rejects as {@link waitForRedis} does. */
export async function checkRedisReachable(options: RedisOptions, timeoutMs: number): Promise<void> {
  const { Redis } = await loadOptional('ioredis', () => import('ioredis'), 'svc-agents/queue');
  const redis = new Redis({ ...options, lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  const ready = waitForRedis(redis, redisAddress(options), timeoutMs);
  redis.connect().catch(() => undefined);
  try {
    await ready;
  } finally {
    redis.disconnect();
  }
}

// A server that answered with an error (wrong password, no such database) will answer the same again.
function answeredByServer(error: unknown): boolean {
  return typeof (error as { severity?: unknown }).severity === 'string';
}

/**
 * Connects to PostgreSQL with `config` until it answers `SELECT 1`, for at most `timeoutMs`, and closes
 * again; rejects with a `BackendUnreachableError` (at once when the server refused the login).
 */
export async function checkPostgresReachable(config: PoolConfig, timeoutMs: number): Promise<void> {
  const pg = (await loadOptional('pg', () => import('pg'), 'svc-agents/queue')).default;
  const address = postgresAddress(config);
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    const client = new pg.Client({ ...config, connectionTimeoutMillis: Math.ceil(remaining) });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      last = error;
      if (answeredByServer(error)) break;
    } finally {
      await client.end().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(0, deadline - Date.now()))));
  }
  throw new BackendUnreachableError({ backend: 'PostgreSQL', address, timeoutMs, cause: last });
}
