import type { RedisOptions } from 'ioredis';
import type { PoolConfig } from 'pg';
import { defaults } from '../core/defaults.js';
import { ConfigurationError } from '../core/errors.js';
import { checkPostgresReachable, checkRedisReachable } from '../stores/first-connect.js';

/**
 * Where the queue lives: a Redis URL or ioredis options (BullMQ's Redis backend), or
 * `{ postgres: url | poolConfig }` (BullMQ's PostgreSQL backend; its tables are created on first use).
 */
export type QueueConnection = string | RedisOptions | { postgres: string | PoolConfig; schema?: string };

/** A connection checked and split by backend. */
export type NormalizedConnection =
  | { kind: 'redis'; options: RedisOptions }
  | { kind: 'postgres'; config: PoolConfig; schema: string };

/** Default BullMQ schema of the PostgreSQL backend (a namespace of its own, beside the store's). */
const DEFAULT_QUEUE_SCHEMA = defaults.postgresQueueSchema;

/** Reads a `QueueConnection`, naming the field when it is wrong. */
export function normalizeConnection(connection: QueueConnection | undefined): NormalizedConnection {
  if (connection === undefined) {
    throw new ConfigurationError({
      field: 'connection',
      rule: 'required: a Redis URL, ioredis options or { postgres: url }',
    });
  }
  if (typeof connection === 'string') return { kind: 'redis', options: parseRedisUrl(connection) };
  if ('postgres' in connection) {
    const { postgres, schema = DEFAULT_QUEUE_SCHEMA } = connection;
    const config = typeof postgres === 'string' ? { connectionString: postgres } : postgres;
    return { kind: 'postgres', config, schema };
  }
  return { kind: 'redis', options: { ...connection } };
}

function parseRedisUrl(text: string): RedisOptions {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigurationError({
      field: `connection`,
      rule: `"${text.replace(/\/\/[^@]*@/, '//***@')}" is not a URL`,
    });
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConfigurationError({
      field: 'connection',
      rule: 'a string must be a redis:// URL; use { postgres: url } for PostgreSQL',
    });
  }
  const options: RedisOptions = { host: url.hostname || '127.0.0.1', port: Number(url.port || 6379) };
  if (url.username) options.username = decodeURIComponent(url.username);
  if (url.password) options.password = decodeURIComponent(url.password);
  const db = url.pathname.slice(1);
  if (db) options.db = Number(db);
  if (url.protocol === 'rediss:') options.tls = {};
  return options;
}

/**
 * Connects once to the queue's backend, for at most `timeoutMs`: a `BackendUnreachableError` naming the
 * address and the cause when it cannot, instead of BullMQ's reconnecting forever before its first success.
 */
export function checkReachable(connection: NormalizedConnection, timeoutMs: number): Promise<void> {
  return connection.kind === 'redis'
    ? checkRedisReachable(connection.options, timeoutMs)
    : checkPostgresReachable(connection.config, timeoutMs);
}
