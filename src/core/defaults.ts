// The names and numbers every entry point falls back to: the library (RunQueue, startWorker, redisStore,
// postgresStore), the CLI (worker, runs, serve, emulator) and the web server read them from here, so what
// one of them writes with its defaults the others find with theirs. A leaf module: it imports nothing.

/** The defaults shared by the library, the CLI and the web server. */
export const defaults = {
  /** Queue name of `RunQueue`, `startWorker` and the CLI's `worker`/`runs`/`serve --queue`. */
  queueName: 'svc-agents-runs',
  /** Prefix of BullMQ's own Redis keys (`<bullPrefix>:<queueName>:...`). */
  bullPrefix: 'svc-agents',
  /** Key prefix of `redisStore`. */
  redisPrefix: 'svc-agents:',
  /** Schema of `postgresStore`'s tables. */
  postgresSchema: 'svc_agents',
  /** Schema of BullMQ's tables on PostgreSQL (beside the store's). */
  postgresQueueSchema: 'svc_agents_queue',
  /** How long a first connection to Redis or PostgreSQL may take before it fails, naming the address. */
  connectTimeoutMs: 10_000,
  /** Port of `svc-agents serve` and `startChatServer`. */
  servePort: 8787,
  /** Port of `svc-agents emulator`. */
  emulatorPort: 8787,
  /** Folder (under the per-user cache folder) of the CLI's embedded emulator state. */
  emulatorDataFolder: 'svc-agents/emulator',
} as const;

/**
 * The CLI's default namespace before 0.x: queue `svc_agents`, Redis keys `svc_agents:`. Its data is still
 * read (with one warning) when no namespace is given.
 */
export const LEGACY_CLI_NAMESPACE = 'svc_agents';

/** Where one namespace keeps its runs: the names to give `RunQueue`/`startWorker` and the stores. */
export interface NamespaceNames {
  /** `name` of `RunQueue` and `startWorker`. */
  queueName: string;
  /** `prefix` of `redisStore`. */
  redisPrefix: string;
  /** `schema` of `postgresStore`. */
  postgresSchema: string;
  /** `schema` of a PostgreSQL `QueueConnection`. */
  postgresQueueSchema: string;
}

/**
 * The names a namespace maps to, as the CLI's `--namespace` uses them; without one, the defaults.
 * @example
 * const names = namespaceNames('tenant_a');
 * new RunQueue({ connection, name: names.queueName, store: redisStore({ url, prefix: names.redisPrefix }) });
 */
export function namespaceNames(namespace?: string): NamespaceNames {
  if (namespace === undefined) {
    const { queueName, redisPrefix, postgresSchema, postgresQueueSchema } = defaults;
    return { queueName, redisPrefix, postgresSchema, postgresQueueSchema };
  }
  return {
    queueName: namespace,
    redisPrefix: `${namespace}:`,
    postgresSchema: namespace,
    postgresQueueSchema: `${namespace}_queue`,
  };
}
