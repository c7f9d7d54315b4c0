import type { Job, Worker } from 'bullmq';
import type { Agent } from '../agent/agent.js';
import type { Store } from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors/run-conflict-error.js';
import { APIError, RateLimitError } from '../transport/errors/api-error.js';
import { computeBackoffDelay, parseRetryAfter } from '../transport/retry-timing.js';
import { createEventBus } from './event-bus.js';
import { loadBullBackend, type RunJobData } from './load-bullmq.js';
import { normalizeConnection, type QueueConnection } from './queue-connection.js';
import type { RateLimits } from './rate-limits.js';
import { DEFAULT_QUEUE_NAME } from './run-queue.js';
import { createWorkerLimits } from './worker-limits.js';
import { deferFailures, markFailed } from './worker-store.js';

/** Options of `startWorker`. */
export interface StartWorkerOptions {
  /** Redis URL / ioredis options, or `{ postgres: url }` (as the `RunQueue`'s). */
  connection: QueueConnection;
  /** The store the queue records runs in. */
  store: Store;
  /** The agents this worker runs, by the name runs are enqueued with. */
  // biome-ignore lint/suspicious/noExplicitAny: agents with any context and output type share one map.
  agents: Record<string, Agent<any, any>>;
  /** Runs this process works on at once. @default 8 */
  concurrency?: number;
  /** Queue name, as the `RunQueue`'s. @default 'svc-agents-runs' */
  name?: string;
  /** On SIGTERM/SIGINT: stop taking runs, finish the current ones (up to `shutdownTimeoutMs`), exit. @default true */
  handleSignals?: boolean;
  /** How long SIGTERM waits for current runs; the rest resume elsewhere from their checkpoints. @default 30_000 */
  shutdownTimeoutMs?: number;
  /** BullMQ lock of a running job: a worker silent this long (killed) has its runs taken over. @default 30_000 */
  lockDurationMs?: number;
  /** How often BullMQ looks for runs of dead workers. @default lockDurationMs */
  stalledIntervalMs?: number;
  /** Takeovers of one job before BullMQ fails it. @default 10 */
  maxStalledCount?: number;
  /**
   * Rate limits shared by every worker of the queue (per model and for the account): model requests wait
   * for budget, and a 429 pauses that model fleet-wide. Without it, requests go out as runs make them.
   */
  limits?: RateLimits;
  /** Called with errors of the worker's connections and of runs (which also stay in the store). */
  onError?: (error: unknown) => void;
}

/** A running worker. */
export interface RunWorker {
  /** Stops taking runs and waits for the current ones; `force` leaves them to other workers. */
  close(force?: boolean): Promise<void>;
}

/**
 * Starts a worker: takes queued runs and resumes each from its last checkpoint with the named agent on
 * the worker's store, publishing its events. A run of a killed worker is found by BullMQ's stalled-job
 * check and resumed by another; a 429 delays the run (by Retry-After) without using up its attempts.
 */
export async function startWorker(options: StartWorkerOptions): Promise<RunWorker> {
  const connection = normalizeConnection(options.connection);
  const backend = await loadBullBackend(connection);
  const name = options.name ?? DEFAULT_QUEUE_NAME;
  const bus = createEventBus(connection, name);
  const store = deferFailures(options.store);
  const onError = options.onError ?? (() => undefined);
  const lockDuration = options.lockDurationMs ?? 30_000;
  const limits = createWorkerLimits(connection, name, options.limits, onError);

  const processRun = async (job: Job<RunJobData>, token?: string): Promise<string> => {
    const { runId, agentName } = job.data;
    const agent = options.agents[agentName];
    if (!agent) {
      const error = new backend.UnrecoverableError(`No agent "${agentName}" in this worker`);
      await markFailed(options.store, runId, error).catch(onError);
      throw error;
    }
    const runLimits = await limits.start(job);
    try {
      const result = await agent.resume(runId, {
        store,
        onEvent: (event) => {
          runLimits.observe(event);
          bus.publish(runId, event).catch(onError);
        },
        ...runLimits.options,
      });
      return result.status;
    } catch (error) {
      // Another worker took the run over (this one was presumed dead): the run is theirs now.
      if (RunConflictError.isInstance(error)) return 'superseded';
      const delay = rateLimitDelay(error, job.attemptsMade);
      if (delay !== undefined && token !== undefined) {
        await job.moveToDelayed(Date.now() + delay, token);
        throw new backend.DelayedError();
      }
      const retryable = APIError.isInstance(error) && error.isRetryable;
      if (!retryable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
        onError(error);
        await markFailed(options.store, runId, error).catch(onError);
        bus.publish(runId, { type: 'error', error }).catch(onError);
        throw new backend.UnrecoverableError(error instanceof Error ? error.message : String(error));
      }
      throw error;
    }
  };

  const worker: Worker<RunJobData> = new backend.Worker(name, processRun, {
    ...backend.options,
    concurrency: options.concurrency ?? 8,
    lockDuration,
    stalledInterval: options.stalledIntervalMs ?? lockDuration,
    maxStalledCount: options.maxStalledCount ?? 10,
  });
  worker.on('error', onError);

  let closing: Promise<void> | undefined;
  const close = (force = false) => {
    closing ??= (async () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      await worker.close(force);
      await bus.close();
      await limits.close();
    })();
    return closing;
  };
  const onSignal = () => {
    const timeout = setTimeout(() => process.exit(1), options.shutdownTimeoutMs ?? 30_000);
    timeout.unref();
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  if (options.handleSignals ?? true) {
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  await worker.waitUntilReady();
  return { close };
}

/** How long to delay a run the service rate-limited: its Retry-After, else a backoff step. */
function rateLimitDelay(error: unknown, attempt: number): number | undefined {
  if (!RateLimitError.isInstance(error)) return undefined;
  return parseRetryAfter(error.headers) ?? computeBackoffDelay(attempt);
}
