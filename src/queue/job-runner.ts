import type { Job } from 'bullmq';
import type { Store } from '../agent/durable/store.js';
import { RunConflictError } from '../agent/errors.js';
import { APIError, RateLimitError } from '../core/errors.js';
import { isTransient } from '../stores/is-transient.js';
import { hasRunEventLog, RunEventLogWriter } from '../stores/run-event-log-writer.js';
import { announceRunEnd } from '../stores/run-events-signal.js';
import { computeBackoffDelay, parseRetryAfter } from '../transport/retry-timing.js';
import { AttemptEventLog } from './attempt-event-log.js';
import type { BullBackend, RunJobData } from './load-bullmq.js';
import { RunStoppedError, StoreRewoundError } from './queue-errors.js';
import { encodeRunEvent } from './queued-run-events.js';
import { markStopped, readStopRequest, watchStop } from './run-stop.js';
import type { StartWorkerOptions, WorkerAgent, WorkerRunObserver, WorkerRunStatus } from './start-worker.js';
import type { WorkerLimits } from './worker-limits.js';
import { deferFailures, fenceWrites, markFailed, recordWrites } from './worker-store.js';

// One attempt of a job: its event log, its observer, and how it ended for good (if it did).
interface JobAttempt {
  log: AttemptEventLog;
  observer: WorkerRunObserver | undefined;
  ended: WorkerRunStatus | undefined;
}

// A worker's agent once built for its run (a factory's answer, or the agent itself).
type RunAgent = Exclude<WorkerAgent, (...args: never[]) => unknown>;

/** What a `JobRunner` takes from its worker. */
export interface JobRunnerOptions extends Pick<StartWorkerOptions, 'store' | 'agents'> {
  /** As `StartWorkerOptions.eventLogTtlMs`. */
  eventLogTtlMs: number | undefined;
  /** As `StartWorkerOptions.observeRun`. */
  observeRun: StartWorkerOptions['observeRun'] | undefined;
  /** The BullMQ classes of the queue's backend (its errors tell BullMQ how a job ended). */
  backend: BullBackend;
  /** The worker's shared rate limits and tenant bookkeeping. */
  limits: WorkerLimits;
  /** How often a running run re-reads its stop request. */
  stopCheckMs: number;
  /** Where errors of runs and of the store go. */
  onError: (error: unknown) => void;
}

/**
 * Runs one queue job at a time per call of `run`: resumes the job's run from its checkpoint, stores its
 * events, and tells BullMQ how it ended (done, delayed for a retry, handed back, failed for good). Keeps
 * what a worker knows of its runs across attempts: transient failures in a row, its own last writes.
 */
export class JobRunner {
  private readonly options: JobRunnerOptions;
  // The store as runs resume on: a failure of a write is deferred to the run's next store call.
  private readonly resumeStore: Store;
  // Transient failures in a row per run: the backoff of its next retry.
  private readonly transientFailures = new Map<string, number>();
  // The last write ids of each run this worker wrote (`recordWrites`): how a conflict is settled.
  private readonly ownWrites = new Map<string, string[]>();
  // The highest version of each run this worker wrote: a record found below it went back in time.
  private readonly highestVersions = new Map<string, number>();

  constructor(options: JobRunnerOptions) {
    this.options = options;
    this.resumeStore = deferFailures(options.store);
  }

  /** Runs the job until it ends, is delayed or handed back; `signal` is a forced close of the worker. */
  async run(job: Job<RunJobData>, token: string | undefined, signal: AbortSignal): Promise<string> {
    const { store, onError } = this.options;
    const { runId } = job.data;
    const eventLogId = job.data.eventLogId ?? runId;
    const writer = this.openLog(eventLogId);
    const observer = await this.observe(runId, eventLogId);
    const log = new AttemptEventLog({
      writer,
      holdLast: Boolean(observer?.onEnd),
      eventLogId,
      onError,
    });
    const attempt: JobAttempt = { log, observer, ended: undefined };
    try {
      return await this.runLogged(job, token, signal, attempt);
    } finally {
      // The events of this attempt are stored before the job ends: a run taken over later goes on from them.
      await log.store();
      // Ended here for good: no later conflict of this run is this worker's own.
      if (attempt.ended) {
        this.ownWrites.delete(runId);
        this.highestVersions.delete(runId);
      }
      if (attempt.ended && observer?.onEnd) {
        const record = await store.getRun(runId).catch(() => undefined);
        await observer.onEnd({ status: attempt.ended, record }).catch(onError);
      }
      await log.releaseHeld();
      // The outcome is recorded: whoever waits for it (`waitUntilFinished`, a follower) reads it now.
      if (attempt.ended) {
        for (const id of new Set([eventLogId, runId])) await announceRunEnd(store, id);
      }
      await observer?.onRelease?.().catch(onError);
    }
  }

  /**
   * BullMQ gave up on the job without running it (it stalled more than `maxStalledCount` times: its run
   * crashes every worker) or after its last attempt: the run ends `failed` and its followers hear so.
   */
  async failGivenUp(job: Job<RunJobData>, error: Error): Promise<void> {
    if (!(await job.isFailed())) return;
    const { runId } = job.data;
    this.transientFailures.delete(runId);
    if (await markFailed(this.options.store, runId, error, { onError: this.options.onError })) {
      this.publishError(runId, error);
    }
  }

  // The run's event log in the store, when the store keeps one: any web server relays it from there.
  private openLog(runId: string): RunEventLogWriter | undefined {
    const { store, eventLogTtlMs, onError } = this.options;
    return hasRunEventLog(store)
      ? new RunEventLogWriter(store, runId, { ttlMs: eventLogTtlMs, onError })
      : undefined;
  }

  // The run's observer (`observeRun`); one that fails to answer is reported and the run goes on without.
  private async observe(runId: string, eventLogId: string): Promise<WorkerRunObserver | undefined> {
    const { observeRun, onError } = this.options;
    if (!observeRun) return undefined;
    return observeRun({ runId, eventLogId }).catch((error: unknown) => {
      onError(error);
      return undefined;
    });
  }

  // An event of a run this worker does not drive (it failed for good): appended on its own.
  private publishError(runId: string, error: unknown): void {
    const log = this.openLog(runId);
    log?.push(encodeRunEvent({ type: 'error', error }));
    log?.close().catch(this.options.onError);
  }

  private async runLogged(
    job: Job<RunJobData>,
    token: string | undefined,
    signal: AbortSignal,
    attempt: JobAttempt,
  ): Promise<string> {
    const { runId } = job.data;
    // A stop is asked by the run id, or by the event log id a chat knows a continuation by.
    const stopIds = [...new Set([runId, job.data.eventLogId ?? runId])];
    // Asked to stop while it waited, or while another worker (since killed) ran it.
    const stopRequest = await this.readStopBeforeStart(stopIds);
    if (stopRequest) {
      attempt.ended = 'stopped';
      return this.endStopped(runId, stopRequest.reason, attempt.log);
    }
    if (job.data.failure !== undefined)
      return this.recordEarlierFailure(job, token, attempt, job.data.failure);
    const agent = await this.buildAgent(job, attempt);
    return this.resumeRun(job, token, signal, attempt, { agent, stopIds });
  }

  // The first stop request found under one of the run's ids, if any.
  private async readStopBeforeStart(stopIds: string[]) {
    const { store, onError } = this.options;
    for (const id of stopIds) {
      // A store that cannot answer now is not asked again before the run starts: the run's own store
      // calls meet the fault (and retry the job), and the stop watch re-reads the request.
      const stopRequest = await readStopRequest(store, id).catch((error: unknown) => {
        onError(error);
        return undefined;
      });
      if (stopRequest) return stopRequest;
    }
    return undefined;
  }

  // A failure an earlier attempt could not record: recorded now, and the run is not started again.
  private async recordEarlierFailure(
    job: Job<RunJobData>,
    token: string | undefined,
    attempt: JobAttempt,
    failure: string,
  ): Promise<string> {
    const { runId } = job.data;
    if (!(await this.recordFailure(runId, failure))) {
      return await this.retryTransient(job, token, new Error(`Run "${runId}" failed; recording it waits`));
    }
    this.transientFailures.delete(runId);
    const error = new this.options.backend.UnrecoverableError(failure);
    attempt.log.push({ type: 'error', error });
    attempt.ended = 'failed';
    throw error;
  }

  // The job's agent, built for its run when a factory; a name this worker does not know fails the run.
  private async buildAgent(job: Job<RunJobData>, attempt: JobAttempt): Promise<RunAgent> {
    const { agents, store, backend, onError } = this.options;
    const { runId, agentName } = job.data;
    const agentOrFactory = Object.hasOwn(agents, agentName) ? agents[agentName] : undefined;
    const agent =
      typeof agentOrFactory === 'function'
        ? await agentOrFactory({ runId, owner: job.data.owner })
        : agentOrFactory;
    if (!agent) {
      const error = new backend.UnrecoverableError(`No agent "${agentName}" in this worker`);
      await markFailed(store, runId, error).catch(onError);
      attempt.log.push({ type: 'error', error });
      attempt.ended = 'failed';
      throw error;
    }
    return agent;
  }

  // Resumes the run from its checkpoint, watching its stop requests while it runs.
  private async resumeRun(
    job: Job<RunJobData>,
    token: string | undefined,
    signal: AbortSignal,
    attempt: JobAttempt,
    { agent, stopIds }: { agent: RunAgent; stopIds: string[] },
  ): Promise<string> {
    const { store, limits, stopCheckMs, onError } = this.options;
    const { runId } = job.data;
    const { log, observer } = attempt;
    const runLimits = await limits.start(job);
    const stop = new AbortController();
    const unwatchers = await Promise.all(
      stopIds.map((id) =>
        watchStop(store, id, (reason) => stop.abort(new RunStoppedError(reason)), {
          recheckMs: stopCheckMs,
          onError,
        }),
      ),
    );
    // A stop aborts the run (no tool starts after it) but, unlike a forced close, its writes go on: the
    // worker records how it ended.
    const runSignal = AbortSignal.any([signal, stop.signal]);
    try {
      const result = await agent.resume(runId, {
        store: fenceWrites(recordWrites(this.resumeStore, this.ownWrites, this.highestVersions), signal),
        signal: runSignal,
        onEvent: (event) => {
          if (runSignal.aborted) return;
          runLimits.observe(event);
          log.push(event);
          observer?.onEvent?.(event);
        },
        ...runLimits.options,
      });
      this.transientFailures.delete(runId);
      attempt.ended = result.status;
      return result.status;
    } catch (error) {
      return await this.settleRunError(job, token, { signal, stop: stop.signal, attempt }, error);
    } finally {
      await Promise.all(unwatchers.map((unwatch) => unwatch())).catch(onError);
    }
  }

  // The run threw: stopped, force-closed, conflicted, to retry, or failed for good.
  private async settleRunError(
    job: Job<RunJobData>,
    token: string | undefined,
    { signal, stop, attempt }: { signal: AbortSignal; stop: AbortSignal; attempt: JobAttempt },
    error: unknown,
  ): Promise<string> {
    const { backend, onError } = this.options;
    const { runId } = job.data;
    if (stop.aborted && !signal.aborted) {
      this.transientFailures.delete(runId);
      attempt.ended = 'stopped';
      return await this.endStopped(runId, (stop.reason as RunStoppedError).reason, attempt.log);
    }
    // Force-closed: the run is left, as it was last checkpointed, to another worker (at once; if the
    // queue cannot be told, once its lock expires). Failing the job would strand the run.
    if (signal.aborted) {
      if (token !== undefined) await job.moveToWait(token).catch(onError);
      throw new backend.WaitingError();
    }
    try {
      if (RunConflictError.isInstance(error)) return await this.settleConflict(job, token, attempt.log);
    } catch (conflictError) {
      if (!isTransient(conflictError)) throw conflictError;
      return await this.retryTransient(job, token, conflictError);
    }
    if (isTransient(error)) return await this.retryTransient(job, token, error);
    const delay = rateLimitDelay(error, job.attemptsMade);
    if (delay !== undefined) return await this.delayRun(job, token, delay);
    const retryable = APIError.isInstance(error) && error.isRetryable;
    if (retryable && job.attemptsMade + 1 < (job.opts.attempts ?? 1)) throw error;
    return await this.failForGood(job, token, attempt, error);
  }

  // The run failed with no attempt left: recorded `failed`, or, when the store does not take that, kept
  // on the job so a later attempt only records it.
  private async failForGood(
    job: Job<RunJobData>,
    token: string | undefined,
    attempt: JobAttempt,
    error: unknown,
  ): Promise<never> {
    const { backend, onError } = this.options;
    const { runId } = job.data;
    onError(error);
    if (!(await this.recordFailure(runId, error))) {
      // The store did not take the failure: the job comes back later only to record it, so the
      // run neither stays `running` (to be run again) nor runs again now.
      const failure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      await job.updateData({ ...job.data, failure }).catch(onError);
      return await this.retryTransient(job, token, error);
    }
    this.transientFailures.delete(runId);
    attempt.log.push({ type: 'error', error });
    attempt.ended = 'failed';
    throw new backend.UnrecoverableError(error instanceof Error ? error.message : String(error));
  }

  // A write conflicted: the record says whose the run is. Its last write was this worker's own (the
  // reply lost, the write sent again, the version already moved by it): resume from the checkpoint. Any
  // other writer owns the run now (another worker, a process resuming it directly), even if it writes
  // nothing for a while (a slow tool); if that owner dies, the stalled-job or stranded-run check hands
  // the run on. No timer decides it, so two processes never drive one run.
  private async settleConflict(
    job: Job<RunJobData>,
    token: string | undefined,
    log: AttemptEventLog,
  ): Promise<string> {
    const { store, backend, onError } = this.options;
    const { runId } = job.data;
    const record = await store.getRun(runId);
    if (!record) return 'superseded';
    if (record.status !== 'running') return record.status;
    // Below a version this worker wrote: the store went back in time (restored from an older snapshot,
    // a lagging replica promoted). Resuming from there would run again calls finished since: stop.
    const highest = this.highestVersions.get(runId) ?? 0;
    if (record.version < highest) {
      const rewound = new StoreRewoundError({ runId, version: record.version, highest });
      onError(rewound);
      await markFailed(store, runId, rewound, { onError });
      log.push({ type: 'error', error: rewound });
      throw new backend.UnrecoverableError(rewound.message);
    }
    const ours = record.writeId !== undefined && this.ownWrites.get(runId)?.includes(record.writeId);
    return ours ? this.delayRun(job, token, 0) : 'superseded';
  }

  // The run was asked to stop: recorded as stopped, its followers told with an `abort` event.
  private async endStopped(runId: string, reason: string | undefined, log: AttemptEventLog): Promise<string> {
    await markStopped(this.options.store, runId, reason);
    log.push({ type: 'abort', reason: new RunStoppedError(reason) });
    return 'stopped';
  }

  // A store or queue connection failed: the run is retried from its checkpoint after a growing backoff.
  private retryTransient(job: Job<RunJobData>, token: string | undefined, error: unknown): Promise<never> {
    const { runId } = job.data;
    const failures = this.transientFailures.get(runId) ?? 0;
    this.transientFailures.set(runId, failures + 1);
    this.options.onError(error);
    return this.delayRun(job, token, computeBackoffDelay(failures));
  }

  // Back to the queue for `delay` ms without using up an attempt.
  private async delayRun(job: Job<RunJobData>, token: string | undefined, delay: number): Promise<never> {
    if (token === undefined) throw new Error('BullMQ gave the processor no token');
    await job.moveToDelayed(Date.now() + delay, token);
    throw new this.options.backend.DelayedError();
  }

  // Records that the run failed for good; false when the store stayed unreachable through the tries.
  private recordFailure(runId: string, error: unknown): Promise<boolean> {
    const { store, onError } = this.options;
    return markFailed(store, runId, error, { onError }).then(
      () => true,
      (failure: unknown) => {
        onError(failure);
        return !isTransient(failure);
      },
    );
  }
}

/** How long to delay a run the service rate-limited: its Retry-After, else a backoff step. */
function rateLimitDelay(error: unknown, attempt: number): number | undefined {
  if (!RateLimitError.isInstance(error)) return undefined;
  return parseRetryAfter(error.headers) ?? computeBackoffDelay(attempt);
}
