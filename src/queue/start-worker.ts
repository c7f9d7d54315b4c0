import type { Job, Worker } from 'bullmq';
import type { Agent } from '../agent/agent.js';
import type { RunRecord, Store } from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors.js';
import type { AgentEvent } from '../agent/events.js';
import { defaults } from '../core/defaults.js';
import { APIError, RateLimitError } from '../core/errors.js';
import { isTransient } from '../stores/is-transient.js';
import { hasRunEventLog, RunEventLogWriter } from '../stores/run-event-log-writer.js';
import { announceRunEnd } from '../stores/run-events-signal.js';
import { computeBackoffDelay, parseRetryAfter } from '../transport/retry-timing.js';
import { checkWorkerClock, repairStalledCheck, watchWorkerClock } from './check-worker-clock.js';
import { loadBullBackend, type RunJobData } from './load-bullmq.js';
import { checkReachable, normalizeConnection, type QueueConnection } from './queue-connection.js';
import { RunStoppedError, StoreRewoundError } from './queue-errors.js';
import { encodeRunEvent } from './queued-run-events.js';
import type { RateLimits } from './rate-limits.js';
import { DEFAULT_QUEUE_NAME, RunQueue } from './run-queue.js';
import { markStopped, readStopRequest, watchStop } from './run-stop.js';
import { createWorkerLimits } from './worker-limits.js';
import { deferFailures, fenceWrites, markFailed, recordWrites } from './worker-store.js';

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

// The events after which a run has nothing more to say.
const TERMINAL_EVENTS = new Set(['finish', 'error', 'abort']);

// Where a job's events go on their way to its stored log.
interface EventSink {
  push(event: AgentEvent): void;
}

// One attempt of a job: its event log, its observer, and how it ended for good (if it did).
interface JobAttempt {
  log: EventSink;
  observer: WorkerRunObserver | undefined;
  ended: WorkerRunStatus | undefined;
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
  const name = options.name ?? DEFAULT_QUEUE_NAME;
  await checkReachable(connection, options.connectTimeoutMs ?? defaults.connectTimeoutMs);
  const store = deferFailures(options.store);
  const onError = options.onError ?? (() => undefined);
  const lockDuration = options.lockDurationMs ?? 30_000;
  // Runs in progress in this process, aborted by a forced close.
  const running = new Map<string, { controller: AbortController; settled: Promise<unknown> }>();
  // Transient failures in a row per run: the backoff of its next retry.
  const transientFailures = new Map<string, number>();
  // The last write ids of each run this worker wrote (`recordWrites`): how a conflict is settled.
  const ownWrites = new Map<string, string[]>();
  // The highest version of each run this worker wrote: a record found below it went back in time.
  const highestVersions = new Map<string, number>();
  const limits = createWorkerLimits(connection, name, options.limits, onError);

  const stopCheckMs = options.stopCheckMs ?? 2_000;
  // The run's event log in the store, when the store keeps one: any web server relays it from there.
  const openLog = (runId: string) =>
    hasRunEventLog(options.store)
      ? new RunEventLogWriter(options.store, runId, { ttlMs: options.eventLogTtlMs, onError })
      : undefined;

  // An event of a run this worker does not drive (it failed for good): appended on its own.
  const publishError = (runId: string, error: unknown) => {
    const log = openLog(runId);
    log?.push(encodeRunEvent({ type: 'error', error }));
    log?.close().catch(onError);
  };

  // The run was asked to stop: recorded as stopped, its followers told with an `abort` event.
  const endStopped = async (runId: string, reason: string | undefined, log: EventSink) => {
    await markStopped(options.store, runId, reason);
    log.push({ type: 'abort', reason: new RunStoppedError(reason) });
    return 'stopped';
  };

  const delayRun = async (job: Job<RunJobData>, token: string | undefined, delay: number) => {
    if (token === undefined) throw new Error('BullMQ gave the processor no token');
    await job.moveToDelayed(Date.now() + delay, token);
    throw new backend.DelayedError();
  };

  // Records that the run failed for good; false when the store stayed unreachable through the tries.
  const recordFailure = (runId: string, error: unknown): Promise<boolean> =>
    markFailed(options.store, runId, error, { onError }).then(
      () => true,
      (failure: unknown) => {
        onError(failure);
        return !isTransient(failure);
      },
    );

  const retryTransient = (job: Job<RunJobData>, token: string | undefined, error: unknown) => {
    const { runId } = job.data;
    const failures = transientFailures.get(runId) ?? 0;
    transientFailures.set(runId, failures + 1);
    onError(error);
    return delayRun(job, token, computeBackoffDelay(failures));
  };

  // A write conflicted: the record says whose the run is. Its last write was this worker's own (the
  // reply lost, the write sent again, the version already moved by it): resume from the checkpoint. Any
  // other writer owns the run now (another worker, a process resuming it directly), even if it writes
  // nothing for a while (a slow tool); if that owner dies, the stalled-job or stranded-run check hands
  // the run on. No timer decides it, so two processes never drive one run.
  const settleConflict = async (
    job: Job<RunJobData>,
    token: string | undefined,
    log: EventSink,
  ): Promise<string> => {
    const { runId } = job.data;
    const record = await options.store.getRun(runId);
    if (!record) return 'superseded';
    if (record.status !== 'running') return record.status;
    // Below a version this worker wrote: the store went back in time (restored from an older snapshot,
    // a lagging replica promoted). Resuming from there would run again calls finished since: stop.
    const highest = highestVersions.get(runId) ?? 0;
    if (record.version < highest) {
      const rewound = new StoreRewoundError({ runId, version: record.version, highest });
      onError(rewound);
      await markFailed(options.store, runId, rewound, { onError });
      log.push({ type: 'error', error: rewound });
      throw new backend.UnrecoverableError(rewound.message);
    }
    const ours = record.writeId !== undefined && ownWrites.get(runId)?.includes(record.writeId);
    return ours ? delayRun(job, token, 0) : 'superseded';
  };

  const runJob = async (
    job: Job<RunJobData>,
    token: string | undefined,
    signal: AbortSignal,
  ): Promise<string> => {
    const { runId } = job.data;
    const eventLogId = job.data.eventLogId ?? runId;
    const log = openLog(eventLogId);
    const observer = options.observeRun
      ? await options.observeRun({ runId, eventLogId }).catch((error: unknown) => {
          onError(error);
          return undefined;
        })
      : undefined;
    // The run's last event (finish, error, abort) waits until the observer has settled what the run
    // leaves behind, so a client acting on it finds that on any server.
    const held: AgentEvent[] = [];
    const sink: EventSink = {
      push(event) {
        if (observer?.onEnd && (held.length > 0 || TERMINAL_EVENTS.has(event.type))) held.push(event);
        else log?.push(encodeRunEvent(event));
      },
    };
    const attempt: JobAttempt = { log: sink, observer, ended: undefined };
    const storeEvents = async () => {
      if (log && !(await log.close()))
        onError(new Error(`Events of run "${eventLogId}" could not be stored`));
    };
    try {
      return await runLogged(job, token, signal, attempt);
    } finally {
      // The events of this attempt are stored before the job ends: a run taken over later goes on from them.
      await storeEvents();
      // Ended here for good: no later conflict of this run is this worker's own.
      if (attempt.ended) {
        ownWrites.delete(runId);
        highestVersions.delete(runId);
      }
      if (attempt.ended && observer?.onEnd) {
        const record = await options.store.getRun(runId).catch(() => undefined);
        await observer.onEnd({ status: attempt.ended, record }).catch(onError);
      }
      if (held.length > 0) {
        for (const event of held) log?.push(encodeRunEvent(event));
        await storeEvents();
      }
      // The outcome is recorded: whoever waits for it (`waitUntilFinished`, a follower) reads it now.
      if (attempt.ended) {
        for (const id of new Set([eventLogId, runId])) await announceRunEnd(options.store, id);
      }
      await observer?.onRelease?.().catch(onError);
    }
  };

  const runLogged = async (
    job: Job<RunJobData>,
    token: string | undefined,
    signal: AbortSignal,
    attempt: JobAttempt,
  ): Promise<string> => {
    const { log, observer } = attempt;
    const { runId, agentName } = job.data;
    // A stop is asked by the run id, or by the event log id a chat knows a continuation by.
    const stopIds = [...new Set([runId, job.data.eventLogId ?? runId])];
    // Asked to stop while it waited, or while another worker (since killed) ran it.
    for (const id of stopIds) {
      // A store that cannot answer now is not asked again before the run starts: the run's own store
      // calls meet the fault (and retry the job), and the stop watch re-reads the request.
      const stopRequest = await readStopRequest(options.store, id).catch((error: unknown) => {
        onError(error);
        return undefined;
      });
      if (stopRequest) {
        attempt.ended = 'stopped';
        return endStopped(runId, stopRequest.reason, log);
      }
    }
    // A failure an earlier attempt could not record: recorded now, and the run is not started again.
    if (job.data.failure !== undefined) {
      if (!(await recordFailure(runId, job.data.failure))) {
        return await retryTransient(job, token, new Error(`Run "${runId}" failed; recording it waits`));
      }
      transientFailures.delete(runId);
      const error = new backend.UnrecoverableError(job.data.failure);
      log.push({ type: 'error', error });
      attempt.ended = 'failed';
      throw error;
    }
    const agentOrFactory = Object.hasOwn(options.agents, agentName) ? options.agents[agentName] : undefined;
    const agent =
      typeof agentOrFactory === 'function'
        ? await agentOrFactory({ runId, owner: job.data.owner })
        : agentOrFactory;
    if (!agent) {
      const error = new backend.UnrecoverableError(`No agent "${agentName}" in this worker`);
      await markFailed(options.store, runId, error).catch(onError);
      log.push({ type: 'error', error });
      attempt.ended = 'failed';
      throw error;
    }
    const runLimits = await limits.start(job);
    const stop = new AbortController();
    const unwatchers = await Promise.all(
      stopIds.map((id) =>
        watchStop(options.store, id, (reason) => stop.abort(new RunStoppedError(reason)), {
          recheckMs: stopCheckMs,
          onError,
        }),
      ),
    );
    const unwatchStop = () => Promise.all(unwatchers.map((unwatch) => unwatch()));
    // A stop aborts the run (no tool starts after it) but, unlike a forced close, its writes go on: the
    // worker records how it ended.
    const runSignal = AbortSignal.any([signal, stop.signal]);
    try {
      const result = await agent.resume(runId, {
        store: fenceWrites(recordWrites(store, ownWrites, highestVersions), signal),
        signal: runSignal,
        onEvent: (event) => {
          if (runSignal.aborted) return;
          runLimits.observe(event);
          log.push(event);
          observer?.onEvent?.(event);
        },
        ...runLimits.options,
      });
      transientFailures.delete(runId);
      attempt.ended = result.status;
      return result.status;
    } catch (error) {
      if (stop.signal.aborted && !signal.aborted) {
        transientFailures.delete(runId);
        attempt.ended = 'stopped';
        return await endStopped(runId, (stop.signal.reason as RunStoppedError).reason, log);
      }
      // Force-closed: the run is left, as it was last checkpointed, to another worker (at once; if the
      // queue cannot be told, once its lock expires). Failing the job would strand the run.
      if (signal.aborted) {
        if (token !== undefined) await job.moveToWait(token).catch(onError);
        throw new backend.WaitingError();
      }
      try {
        if (RunConflictError.isInstance(error)) return await settleConflict(job, token, log);
      } catch (conflictError) {
        if (!isTransient(conflictError)) throw conflictError;
        return await retryTransient(job, token, conflictError);
      }
      if (isTransient(error)) return await retryTransient(job, token, error);
      const delay = rateLimitDelay(error, job.attemptsMade);
      if (delay !== undefined) return await delayRun(job, token, delay);
      const retryable = APIError.isInstance(error) && error.isRetryable;
      if (!retryable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
        onError(error);
        if (!(await recordFailure(runId, error))) {
          // The store did not take the failure: the job comes back later only to record it, so the
          // run neither stays `running` (to be run again) nor runs again now.
          const failure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
          await job.updateData({ ...job.data, failure }).catch(onError);
          return await retryTransient(job, token, error);
        }
        transientFailures.delete(runId);
        log.push({ type: 'error', error });
        attempt.ended = 'failed';
        throw new backend.UnrecoverableError(error instanceof Error ? error.message : String(error));
      }
      throw error;
    } finally {
      await unwatchStop().catch(onError);
    }
  };

  let forceClosing = false;
  // Set while this worker's clock is off (PostgreSQL queue, see below).
  let clockPaused = false;
  const processRun = async (job: Job<RunJobData>, token?: string): Promise<string> => {
    // Taken while this worker was being force-closed, or by a fetch under way when its clock went off:
    // handed back untouched.
    if (forceClosing || clockPaused) {
      if (token !== undefined) await job.moveToWait(token).catch(onError);
      throw new backend.WaitingError();
    }
    const controller = new AbortController();
    const result = runJob(job, token, controller.signal);
    const key = job.id ?? job.data.runId;
    running.set(key, { controller, settled: result.catch(() => undefined) });
    try {
      return await result;
    } finally {
      running.delete(key);
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
  // BullMQ gave up on a job without running it (it stalled more than `maxStalledCount` times: its run
  // crashes every worker) or after its last attempt: the run ends `failed` and its followers hear so.
  worker.on('failed', (job, error) => {
    if (!job) return;
    void (async () => {
      if (!(await job.isFailed())) return;
      const { runId } = job.data;
      transientFailures.delete(runId);
      if (await markFailed(options.store, runId, error, { onError })) publishError(runId, error);
    })().catch(onError);
  });

  const strandedCheckMs = options.strandedRunCheckMs ?? 60_000;
  const producer =
    strandedCheckMs > 0
      ? new RunQueue({ connection: options.connection, store: options.store, name })
      : undefined;
  const strandedTimer =
    producer &&
    setInterval(() => {
      producer
        .requeueStranded({
          olderThanMs: options.strandedAfterMs ?? 300_000,
          agentNames: Object.keys(options.agents),
        })
        .catch(onError);
    }, strandedCheckMs);
  strandedTimer?.unref();
  // On PostgreSQL a stalled-check time stored in the future (a worker's clock jumped) is taken back.
  const repairer =
    connection.kind === 'postgres'
      ? repairStalledCheck(connection.config, connection.schema, name, {
          intervalMs: options.stalledIntervalMs ?? lockDuration,
          toleranceMs: Math.floor(lockDuration / 6),
          onError,
        })
      : undefined;
  // And a clock that jumps after the start check: the worker takes no run while it is off (it would steal
  // live runs, and store lock and stalled-check times in the future), then repairs what it stored.
  const stopClockWatch =
    repairer &&
    watchWorkerClock(repairer.pool, {
      toleranceMs: Math.floor(lockDuration / 6),
      everyMs: Math.min(1_000, Math.max(50, Math.floor(lockDuration / 12))),
      onSkewed: (error) => {
        onError(error);
        if (closing) return;
        clockPaused = true;
        worker.pause(true).catch(onError);
      },
      onRecovered: () => {
        repairer.repairNow();
        if (!clockPaused || closing) return;
        clockPaused = false;
        worker.resume();
      },
      onError,
    });
  const stopRepair =
    repairer &&
    (() => {
      stopClockWatch?.();
      return repairer.stop();
    });

  let closing: Promise<void> | undefined;
  const close = (force = false) => {
    closing ??= (async () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      clearInterval(strandedTimer);
      if (force) {
        forceClosing = true;
        // No new runs: the ones handed back below must go to other workers, not come back here.
        await worker.pause(true).catch(onError);
        const current = [...running.values()];
        for (const { controller } of current) controller.abort(new Error('The worker was force-closed'));
        // Their writes are refused from now on; wait until their code has returned.
        await Promise.all(current.map(({ settled }) => settled));
      }
      // Not BullMQ's forced close, even when forced: a fetch already under way when the worker paused can
      // still hand it a job, which `processRun` gives back at once; BullMQ's forced close would not wait for
      // that and close the connection under it, leaving the job active under this worker's lock until the
      // stalled check (lockDurationMs) frees it. Our own runs have returned above, so this waits only for
      // those hand-backs.
      await worker.close(false);
      await Promise.all([producer?.close(), limits.close(), stopRepair?.()]);
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
