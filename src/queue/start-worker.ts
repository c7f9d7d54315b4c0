import type { Agent } from '../agent/agent.js';
import type { RunRecord, Store } from '../agent/durable/store.js';
import type { AgentEvent } from '../agent/events.js';
import { defaults } from '../core/defaults.js';
import { checkWorkerClock } from './check-worker-clock.js';
import { loadBullBackend } from './load-bullmq.js';
import { checkReachable, normalizeConnection, type QueueConnection } from './queue-connection.js';
import { QueueWorker } from './queue-worker.js';
import type { RateLimits } from './rate-limits.js';

/** Options of `startWorker`. */
export interface StartWorkerOptions {
  /** Redis URL / ioredis options, or `{ postgres: url }` (as the `RunQueue`'s). */
  connection: QueueConnection;
  /** The store the queue records runs in. */
  store: Store;
  /**
   * The agents this worker runs, by the name runs are enqueued with: an agent, or a factory building one
   * per run from who the run acts for (`EnqueueOptions.owner`), e.g. with tools scoped to that user.
   */
  agents: Record<string, WorkerAgent>;
  /** Runs this process works on at once. @default 8 */
  concurrency?: number;
  /** Queue name, as the `RunQueue`'s. @default 'svc-agents-runs' */
  name?: string;
  /**
   * How long the first connection to the queue's backend may take: past it `startWorker` rejects with a
   * `BackendUnreachableError` naming the address and the cause. Later losses are retried as before.
   * @default 10_000
   */
  connectTimeoutMs?: number;
  /** On SIGTERM/SIGINT: stop taking runs, finish the current ones (up to `shutdownTimeoutMs`), exit. @default true */
  handleSignals?: boolean;
  /** How long SIGTERM waits for current runs; the rest resume elsewhere from their checkpoints. @default 30_000 */
  shutdownTimeoutMs?: number;
  /** BullMQ lock of a running job: a worker silent this long (killed) has its runs taken over. @default 30_000 */
  lockDurationMs?: number;
  /** How often BullMQ looks for runs of dead workers. @default lockDurationMs */
  stalledIntervalMs?: number;
  /**
   * Takeovers of one run after its worker died before BullMQ gives up on it (a run that crashes every
   * worker): the run is then recorded `failed` with the reason, and its followers get an `error` event.
   * @default 10
   */
  maxStalledCount?: number;
  /**
   * How often this worker queues again the stored `running` runs of its agents that no job holds
   * (`queue.requeueStranded`); 0 turns the check off. With a store shared with direct `agent.run` calls,
   * their runs count too: a run of one of these agents not written for `strandedAfterMs` is queued.
   * @default 60_000
   */
  strandedRunCheckMs?: number;
  /** A `running` run last written this long ago with no job is stranded. @default 300_000 */
  strandedAfterMs?: number;
  /**
   * Rate limits shared by every worker of the queue (per model and for the account): model requests wait
   * for budget, and a 429 pauses that model fleet-wide. Without it, requests go out as runs make them.
   */
  limits?: RateLimits;
  /**
   * How often a running run re-reads its stop request (`queue.stop`), in case the store's signal was
   * lost; a stop normally arrives by the signal at once. @default 2_000
   */
  stopCheckMs?: number;
  /**
   * How long a run's event log (kept when the store has `appendRunEvents`) stays after its last event.
   * @default 86_400_000
   */
  eventLogTtlMs?: number;
  /**
   * Called when this worker starts executing a run (also one taken over from another worker); the
   * observer it answers sees the run's events and its end. A web chat keeps its shared state with it
   * (`chatRunObserver` of svc-agents/web). Its failures go to `onError`, never to the run.
   */
  observeRun?: (run: { runId: string; eventLogId: string }) => Promise<WorkerRunObserver | undefined>;
  /** Called with errors of the worker's connections and of runs (which also stay in the store). */
  onError?: (error: unknown) => void;
}

/** What a worker's agent factory is told of the run it builds the agent for. */
export interface WorkerAgentContext {
  /** The stored run's id. */
  runId: string;
  /** Who the run acts for (`EnqueueOptions.owner`), kept across approvals and requeues; absent without one. */
  owner: string | undefined;
}

/** An agent of a worker, or a factory building one per run (see `WorkerAgentContext`). */
export type WorkerAgent =
  // biome-ignore lint/suspicious/noExplicitAny: agents with any context and output type share one map.
  | Agent<any, any>
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  | ((run: WorkerAgentContext) => Agent<any, any> | Promise<Agent<any, any>>);

/** How a run ended in a worker: as the agent ended it, failed for good, or stopped by `queue.stop`. */
export type WorkerRunStatus = 'completed' | 'interrupted' | 'failed' | 'stopped';

/** What `observeRun` answers: told about one run while this worker executes it. */
export interface WorkerRunObserver {
  /** Each event of the run, as it is published. */
  onEvent?(event: AgentEvent): void;
  /**
   * The run ended for good in this worker (not a retry or a hand-over), after its events were stored but
   * its last one (`finish`, `error`, `abort`): that one is appended once this resolves, so a client acting
   * on it finds what `onEnd` wrote.
   */
  onEnd?(ending: { status: WorkerRunStatus; record: RunRecord | undefined }): Promise<void>;
  /** This worker no longer executes the run (it ended, or goes back to the queue): always called, last. */
  onRelease?(): Promise<void>;
}

/** A running worker. */
export interface RunWorker {
  /**
   * Stops taking runs and waits for the current ones. `force` aborts them (their `signal`) and leaves them
   * to other workers from their last checkpoints, as a crash would: once it resolves, nothing of theirs
   * runs or writes in this process.
   */
  close(force?: boolean): Promise<void>;
}

/**
 * Starts a worker: takes queued runs and resumes each from its last checkpoint with the named agent on
 * the worker's store, publishing its events. A run of a killed worker is found by BullMQ's stalled-job
 * check and resumed by another; a 429 delays the run (by Retry-After) without using up its attempts,
 * and so does a store or queue connection failing (`isTransient`): the run is
 * retried from its checkpoint, never failed for good.
 */
export async function startWorker(options: StartWorkerOptions): Promise<RunWorker> {
  const connection = normalizeConnection(options.connection);
  const backend = await loadBullBackend(connection);
  // On PostgreSQL, BullMQ times locks and stalled checks by this process's clock: a skewed one is refused.
  if (connection.kind === 'postgres') {
    const lockMs = options.lockDurationMs ?? 30_000;
    await checkWorkerClock(connection.config, Math.floor(lockMs / 6), options.onError ?? (() => undefined));
  }
  await checkReachable(connection, options.connectTimeoutMs ?? defaults.connectTimeoutMs);
  const worker = new QueueWorker(options, connection, backend);
  await worker.ready();
  // Only `close` is the handle: the worker's other members stay out of the public API.
  return { close: (force?: boolean) => worker.close(force) };
}
