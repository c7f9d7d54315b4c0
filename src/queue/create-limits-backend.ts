import type { LimitsBackend } from './limits-backend.js';
import { postgresLimitsBackend } from './postgres-limits-backend.js';
import type { NormalizedConnection } from './queue-connection.js';
import { redisLimitsBackend } from './redis-limits-backend.js';

/** How long a window's stats are kept, in windows (the current, the last, and one for clock skew). */
const STATS_WINDOWS_KEPT = 3;

/** The limits backend of a queue, on its Redis or PostgreSQL (connecting on first use). */
export function createLimitsBackend(
  connection: NormalizedConnection,
  queueName: string,
  windowMs: number,
): LimitsBackend {
  return connection.kind === 'redis'
    ? redisLimitsBackend(connection.options, limitsPrefix(queueName), windowMs * STATS_WINDOWS_KEPT)
    : postgresLimitsBackend(connection.config, connection.schema, queueName);
}

/** The key prefix of a queue's limits (bucket keys, and on Redis every key). */
export function limitsPrefix(queueName: string): string {
  return `svc-agents:${queueName}:limits:`;
}
