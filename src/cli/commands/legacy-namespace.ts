import { defaults, LEGACY_CLI_NAMESPACE, namespaceNames } from '../../core/defaults.js';
import { loadOptional } from '../../core/load-module.js';
import type { NormalizedConnection } from '../../queue/queue-connection.js';

/** What the old CLI default namespace still holds. */
export interface LegacyData {
  /** Stored runs under its own Redis prefix (on PostgreSQL its store schema is the default one). */
  storeHasRuns: boolean;
  /** Jobs waiting (or running) in its queue. */
  queueHasJobs: boolean;
}

// The BullMQ job states in which a job still has to run.
const PENDING_LISTS = ['wait', 'active', 'delayed', 'prioritized', 'paused', 'waiting-children'];

/**
 * Looks, read-only, for data the CLI wrote under its old default namespace (`svc_agents`), before it took
 * the library's defaults: so a user who upgrades is told where their runs are instead of seeing none.
 */
export async function findLegacyData(connection: NormalizedConnection): Promise<LegacyData> {
  const legacy = namespaceNames(LEGACY_CLI_NAMESPACE);
  if (connection.kind === 'redis') {
    const { Redis } = await loadOptional('ioredis', () => import('ioredis'), 'svc-agents runs');
    const redis = new Redis({ ...connection.options, maxRetriesPerRequest: 1, lazyConnect: true });
    redis.on('error', () => undefined);
    try {
      const queueKeys = PENDING_LISTS.map((list) => `${defaults.bullPrefix}:${legacy.queueName}:${list}`);
      const [storeKeys, jobKeys] = await Promise.all([
        redis.exists(`${legacy.redisPrefix}runs`),
        redis.exists(...queueKeys),
      ]);
      return { storeHasRuns: storeKeys > 0, queueHasJobs: jobKeys > 0 };
    } finally {
      redis.disconnect();
    }
  }
  const pg = (await loadOptional('pg', () => import('pg'), 'svc-agents runs')).default;
  const client = new pg.Client({ ...connection.config, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [
      `${connection.schema}.job`,
    ]);
    if (!rows[0]?.present) return { storeHasRuns: false, queueHasJobs: false };
    const jobs = await client.query(
      `SELECT 1 FROM "${connection.schema.replace(/"/g, '""')}".job WHERE queue = $1 AND state <> 'completed' AND state <> 'failed' LIMIT 1`,
      [legacy.queueName],
    );
    return { storeHasRuns: false, queueHasJobs: (jobs.rowCount ?? 0) > 0 };
  } finally {
    await client.end().catch(() => undefined);
  }
}
