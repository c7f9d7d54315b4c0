import type { Store } from '../../agent/durable/store.js';
import { defaults, LEGACY_CLI_NAMESPACE, namespaceNames } from '../../core/defaults.js';
import { checkReachable, normalizeConnection, type QueueConnection } from '../../queue/queue-connection.js';
import type { GuardedStore } from '../../stores/guard-store.js';
import type { CommandContext, OptionSpec, ParsedArgs } from '../command.js';
import { CliUsageError } from '../errors.js';
import { findLegacyData } from './legacy-namespace.js';

// A command line waits less than a long-running library process for a server that is not there.
const CLI_CONNECT_TIMEOUT_MS = 2_000;

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
    description: `queue name, Redis key prefix (<name>:) and PostgreSQL schema of the store; default: the library's (queue ${defaults.queueName}, prefix ${defaults.redisPrefix}, schema ${defaults.postgresSchema})`,
  },
};

/** Where one namespace's runs live: its queue and its store. */
export interface RunLocation {
  connection: QueueConnection;
  queueName: string;
  store: GuardedStore;
}

/** The queue connection, its name and the store named by the flags, opened for one command. */
export interface RunBackend extends RunLocation {
  store: GuardedStore & Store;
  /**
   * Without `--namespace`, the old CLI default namespace (`svc_agents`) when it still holds data: its store
   * (when it differs from the default one) and its queue (when jobs wait in it). Read beside the default.
   */
  legacy?: { location: RunLocation; storeHasRuns: boolean; queueHasJobs: boolean } | undefined;
}

/**
 * Opens the store and names the queue from `--redis`/`--postgres` (or `SVC_REDIS_URL`/`SVC_POSTGRES_URL`)
 * and `--namespace` (`namespaceNames`: the library's defaults without it). The server is reached first,
 * within a few seconds: a dead address fails the command naming it and the cause.
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
  const namespace = args.values.namespace as string | undefined;
  if (namespace !== undefined && !/^[a-z_][a-z0-9_]{0,40}$/i.test(namespace)) {
    throw new CliUsageError('--namespace: letters, digits and _ only, at most 41 characters', command);
  }
  if (redis && postgres) throw new CliUsageError('give --redis or --postgres, not both', command);
  if (!redis && !postgres) {
    throw new CliUsageError(
      'needs --redis <url> or --postgres <url> (or SVC_REDIS_URL / SVC_POSTGRES_URL)',
      command,
    );
  }
  const open = (names: ReturnType<typeof namespaceNames>) => openLocation(ctx, { redis, postgres }, names);
  const backend: RunBackend = await open(namespaceNames(namespace));
  await checkReachable(normalizeConnection(backend.connection), CLI_CONNECT_TIMEOUT_MS);
  if (namespace !== undefined) return backend;
  const found = await findLegacyData(normalizeConnection(backend.connection));
  if (!found.storeHasRuns && !found.queueHasJobs) return backend;
  ctx.io.stderr.write(
    `warning: the old default namespace ${LEGACY_CLI_NAMESPACE} still holds ${[found.storeHasRuns && 'runs', found.queueHasJobs && 'queued jobs'].filter(Boolean).join(' and ')}; ` +
      `reading it beside the default (queue ${defaults.queueName}); --namespace ${LEGACY_CLI_NAMESPACE} reads only it\n`,
  );
  backend.legacy = { location: await open(namespaceNames(LEGACY_CLI_NAMESPACE)), ...found };
  return backend;
}

async function openLocation(
  ctx: CommandContext,
  urls: { redis: string | undefined; postgres: string | undefined },
  names: ReturnType<typeof namespaceNames>,
): Promise<RunLocation> {
  // A damaged record is skipped by listings with a warning: it goes to stderr, the good runs to stdout.
  const onWarning = (message: string) => ctx.io.stderr.write(`warning: ${message}\n`);
  const storeOptions = { onWarning, connectTimeoutMs: CLI_CONNECT_TIMEOUT_MS };
  if (urls.redis) {
    const { redisStore } = await import('../../stores/redis-store.js');
    const store = redisStore({ url: urls.redis, prefix: names.redisPrefix, ...storeOptions });
    ctx.defer(() => store.close());
    return { connection: urls.redis, queueName: names.queueName, store };
  }
  const { postgresStore } = await import('../../stores/postgres-store.js');
  const store = postgresStore({
    connectionString: urls.postgres!,
    schema: names.postgresSchema,
    ...storeOptions,
  });
  ctx.defer(() => store.close());
  return {
    connection: { postgres: urls.postgres!, schema: names.postgresQueueSchema },
    queueName: names.queueName,
    store,
  };
}

/** The `connectTimeoutMs` a command gives a `RunQueue` or `startWorker`. */
export const cliConnectTimeoutMs = CLI_CONNECT_TIMEOUT_MS;
