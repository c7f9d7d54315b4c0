import type { Job, Queue, Worker } from 'bullmq';
import { defaults } from '../core/defaults.js';
import { loadOptional } from '../core/load-module.js';
import type { NormalizedConnection } from './queue-connection.js';

/** What a queue job carries: the run to resume (its record is already in the store). */
export interface RunJobData {
  runId: string;
  agentName: string;
  /** The run's tenant (fair scheduling, stats), when it was enqueued with one. */
  tenant?: string;
  /** The key of the run's event log and stop requests, when not `runId` (a chat's continuation). */
  eventLogId?: string;
  /** Who the run acts for (`EnqueueOptions.owner`). */
  owner?: string;
  /** Set once a worker started the run, so its tenant leaves the backlog once. */
  started?: boolean;
  /** Why the run failed for good, when the store could not record it then: the job only records it. */
  failure?: string;
}

/** The BullMQ pieces of one backend, with the connection option to give them. */
export interface BullBackend {
  Queue: new (name: string, options: Record<string, unknown>) => Queue<RunJobData>;
  Worker: new (
    name: string,
    processor: (job: Job<RunJobData>, token?: string) => Promise<unknown>,
    options: Record<string, unknown>,
  ) => Worker<RunJobData>;
  DelayedError: new () => Error;
  /** Thrown after `job.moveToWait`: BullMQ leaves the job waiting for any worker. */
  WaitingError: new () => Error;
  UnrecoverableError: new (message?: string) => Error;
  /** Options every worker of this backend gets (connection, prefix). */
  options: Record<string, unknown>;
  /**
   * Options of a producer (`Queue`): its commands give up across a lost connection instead of waiting
   * for it forever, so enqueueing fails with an error rather than hanging.
   */
  producerOptions: Record<string, unknown>;
}

/** Loads bullmq (an optional peer dependency) for the connection's backend. */
export async function loadBullBackend(connection: NormalizedConnection): Promise<BullBackend> {
  const bullmq = await loadOptional('bullmq', () => import('bullmq'), 'svc-agents/queue');
  const { DelayedError, UnrecoverableError, WaitingError } = bullmq;
  if (connection.kind === 'redis') {
    return {
      Queue: bullmq.Queue as unknown as BullBackend['Queue'],
      Worker: bullmq.Worker as unknown as BullBackend['Worker'],
      DelayedError,
      WaitingError,
      UnrecoverableError,
      // BullMQ's workers block on Redis: it wants no per-request retry limit.
      options: {
        connection: { ...connection.options, maxRetriesPerRequest: null },
        prefix: defaults.bullPrefix,
      },
      producerOptions: {
        connection: { ...connection.options, maxRetriesPerRequest: 1 },
        prefix: defaults.bullPrefix,
      },
    };
  }
  const classes = bullmq.withBackend(bullmq.createPostgresBackend);
  return {
    Queue: classes.Queue as unknown as BullBackend['Queue'],
    Worker: classes.Worker as unknown as BullBackend['Worker'],
    DelayedError,
    WaitingError,
    UnrecoverableError,
    // `migrate: true`: BullMQ creates (and upgrades) its tables on first use.
    options: { connection: { ...connection.config, schema: connection.schema, migrate: true } },
    producerOptions: {
      connection: {
        connectionTimeoutMillis: 5_000,
        ...connection.config,
        schema: connection.schema,
        migrate: true,
      },
    },
  };
}
