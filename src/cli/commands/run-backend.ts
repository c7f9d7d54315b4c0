import type { Store } from '../../agent/durable/store.js';
import type { QueueConnection } from '../../queue/queue-connection.js';
import type { CommandContext, OptionSpec, ParsedArgs } from '../command.js';
import { CliUsageError } from '../errors.js';

/** Flags shared by `worker` and `runs ...`: where the queue and the store live. */
export const backendOptions: Record<string, OptionSpec> = {
  redis: { type: 'string', valueName: '<url>', description: 'Redis for queue and store (or SVC_REDIS_URL)' },
  postgres: {
    type: 'string',
    valueName: '<url>',
    description: 'PostgreSQL for queue and store (or SVC_POSTGRES_URL)',
  },
  namespace: {
    type: 'string',
    valueName: '<name>',
    description: 'queue name, Redis key prefix / PostgreSQL schema of the store (default svc_agents)',
  },
};

/** The queue connection, its name and the store named by the flags, opened for one command. */
export interface RunBackend {
  connection: QueueConnection;
  queueName: string;
  store: Store;
}

/**
 * Opens the store and names the queue from `--redis`/`--postgres` (or `SVC_REDIS_URL`/`SVC_POSTGRES_URL`)
 * and `--namespace`. The store lives beside the queue: Redis keys `<namespace>:...`, or the PostgreSQL
 * schema `<namespace>` (the queue's tables in `<namespace>_queue`).
 */
export async function openRunBackend(
  ctx: CommandContext,
  args: ParsedArgs,
  command: string,
): Promise<RunBackend> {
  const { env } = ctx.io;
  const redis =
    (args.values.redis as string | undefined) ?? (args.values.postgres ? undefined : env.SVC_REDIS_URL);
  const postgres = (args.values.postgres as string | undefined) ?? (redis ? undefined : env.SVC_POSTGRES_URL);
  const namespace = (args.values.namespace as string | undefined) ?? 'svc_agents';
  if (!/^[a-z_][a-z0-9_]{0,40}$/i.test(namespace)) {
    throw new CliUsageError('--namespace: letters, digits and _ only, at most 41 characters', command);
  }
  if (redis && postgres) throw new CliUsageError('give --redis or --postgres, not both', command);
  // A damaged record is skipped by listings with a warning: it goes to stderr, the good runs to stdout.
  const onWarning = (message: string) => ctx.io.stderr.write(`warning: ${message}\n`);
  if (redis) {
    const { redisStore } = await import('../../stores/redis-store.js');
    const store = redisStore({ url: redis, prefix: `${namespace}:`, onWarning });
    ctx.defer(() => store.close?.());
    return { connection: redis, queueName: namespace, store };
  }
  if (postgres) {
    const { postgresStore } = await import('../../stores/postgres-store.js');
    const store = postgresStore({ connectionString: postgres, schema: namespace, onWarning });
    ctx.defer(() => store.close?.());
    return { connection: { postgres, schema: `${namespace}_queue` }, queueName: namespace, store };
  }
  throw new CliUsageError(
    'needs --redis <url> or --postgres <url> (or SVC_REDIS_URL / SVC_POSTGRES_URL)',
    command,
  );
}
