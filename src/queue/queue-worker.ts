import type { Job, Worker } from 'bullmq';
import { repairStalledCheck, watchWorkerClock } from './check-worker-clock.js';
import { JobRunner } from './job-runner.js';
import type { BullBackend, RunJobData } from './load-bullmq.js';
import type { NormalizedConnection } from './queue-connection.js';
import { DEFAULT_QUEUE_NAME, RunQueue } from './run-queue.js';
import type { RunWorker, StartWorkerOptions } from './start-worker.js';
import { createWorkerLimits, type WorkerLimits } from './worker-limits.js';

// A run in progress in this process, aborted by a forced close.
interface RunningJob {
  controller: AbortController;
  settled: Promise<unknown>;
}

/**
 * The worker `startWorker` answers: a BullMQ worker taking queued runs (each run by a `JobRunner`), the
 * stranded-run check, on PostgreSQL the watch of this process's clock, and an orderly or forced close.
 */
export class QueueWorker implements RunWorker {
  private readonly options: StartWorkerOptions;
  private readonly onError: (error: unknown) => void;
  private readonly limits: WorkerLimits;
  private readonly jobs: JobRunner;
  private readonly worker: Worker<RunJobData>;
  // Runs in progress in this process, by job id, aborted by a forced close.
  private readonly running = new Map<string, RunningJob>();
  // The queue this worker requeues stranded runs on; absent with the check off.
  private readonly producer: RunQueue | undefined;
  private readonly strandedTimer: NodeJS.Timeout | undefined;
  // Stops the clock watch and the stalled-check repair (PostgreSQL queue).
  private readonly stopRepair: (() => Promise<void>) | undefined;
  private forceClosing = false;
  // Set while this worker's clock is off (PostgreSQL queue, see `watchClock`).
  private clockPaused = false;
  private closing: Promise<void> | undefined;

  constructor(options: StartWorkerOptions, connection: NormalizedConnection, backend: BullBackend) {
    this.options = options;
    this.onError = options.onError ?? (() => undefined);
    const name = options.name ?? DEFAULT_QUEUE_NAME;
    const lockDuration = options.lockDurationMs ?? 30_000;
    this.limits = createWorkerLimits(connection, name, options.limits, this.onError);
    this.jobs = new JobRunner({
      store: options.store,
      agents: options.agents,
      eventLogTtlMs: options.eventLogTtlMs,
      observeRun: options.observeRun,
      backend,
      limits: this.limits,
      stopCheckMs: options.stopCheckMs ?? 2_000,
      onError: this.onError,
    });
    this.worker = new backend.Worker(name, (job, token) => this.processJob(backend, job, token), {
      ...backend.options,
      concurrency: options.concurrency ?? 8,
      lockDuration,
      stalledInterval: options.stalledIntervalMs ?? lockDuration,
      maxStalledCount: options.maxStalledCount ?? 10,
    });
    this.worker.on('error', this.onError);
    this.worker.on('failed', (job, error) => {
      if (job) this.jobs.failGivenUp(job, error).catch(this.onError);
    });
    const strandedCheckMs = options.strandedRunCheckMs ?? 60_000;
    this.producer =
      strandedCheckMs > 0
        ? new RunQueue({ connection: options.connection, store: options.store, name })
        : undefined;
    this.strandedTimer = this.producer && this.startStrandedCheck(this.producer, strandedCheckMs);
    this.stopRepair =
      connection.kind === 'postgres' ? this.watchClock(connection, name, lockDuration) : undefined;
    if (options.handleSignals ?? true) {
      process.once('SIGTERM', this.onSignal);
      process.once('SIGINT', this.onSignal);
    }
  }

  /** Resolves once BullMQ's worker is connected and taking jobs. */
  ready(): Promise<unknown> {
    return this.worker.waitUntilReady();
  }

  /**
   * Stops taking runs and waits for the current ones. `force` aborts them and leaves them to other
   * workers from their last checkpoints (see `RunWorker.close`).
   */
  close(force = false): Promise<void> {
    this.closing ??= this.shutDown(force);
    return this.closing;
  }

  // BullMQ's processor: one job, run by the job runner while this worker takes runs.
  private async processJob(backend: BullBackend, job: Job<RunJobData>, token?: string): Promise<string> {
    // Taken while this worker was being force-closed, or by a fetch under way when its clock went off:
    // handed back untouched.
    if (this.forceClosing || this.clockPaused) {
      if (token !== undefined) await job.moveToWait(token).catch(this.onError);
      throw new backend.WaitingError();
    }
    const controller = new AbortController();
    const result = this.jobs.run(job, token, controller.signal);
    const key = job.id ?? job.data.runId;
    this.running.set(key, { controller, settled: result.catch(() => undefined) });
    try {
      return await result;
    } finally {
      this.running.delete(key);
    }
  }

  // Every `everyMs`, the stored `running` runs of this worker's agents that no job holds are queued again.
  private startStrandedCheck(producer: RunQueue, everyMs: number): NodeJS.Timeout {
    const timer = setInterval(() => {
      producer
        .requeueStranded({
          olderThanMs: this.options.strandedAfterMs ?? 300_000,
          agentNames: Object.keys(this.options.agents),
        })
        .catch(this.onError);
    }, everyMs);
    timer.unref();
    return timer;
  }

  // On PostgreSQL a stalled-check time stored in the future (a worker's clock jumped) is taken back. And a
  // clock that jumps after the start check: the worker takes no run while it is off (it would steal live
  // runs, and store lock and stalled-check times in the future), then repairs what it stored. Answers how
  // to stop both.
  private watchClock(
    connection: Extract<NormalizedConnection, { kind: 'postgres' }>,
    name: string,
    lockDuration: number,
  ): () => Promise<void> {
    const { onError } = this;
    const repairer = repairStalledCheck(connection.config, connection.schema, name, {
      intervalMs: this.options.stalledIntervalMs ?? lockDuration,
      toleranceMs: Math.floor(lockDuration / 6),
      onError,
    });
    const stopClockWatch = watchWorkerClock(repairer.pool, {
      toleranceMs: Math.floor(lockDuration / 6),
      everyMs: Math.min(1_000, Math.max(50, Math.floor(lockDuration / 12))),
      onSkewed: (error) => {
        onError(error);
        if (this.closing) return;
        this.clockPaused = true;
        this.worker.pause(true).catch(onError);
      },
      onRecovered: () => {
        repairer.repairNow();
        if (!this.clockPaused || this.closing) return;
        this.clockPaused = false;
        this.worker.resume();
      },
      onError,
    });
    return () => {
      stopClockWatch();
      return repairer.stop();
    };
  }

  private async shutDown(force: boolean): Promise<void> {
    process.off('SIGTERM', this.onSignal);
    process.off('SIGINT', this.onSignal);
    clearInterval(this.strandedTimer);
    if (force) {
      this.forceClosing = true;
      // No new runs: the ones handed back below must go to other workers, not come back here.
      await this.worker.pause(true).catch(this.onError);
      const current = [...this.running.values()];
      for (const { controller } of current) controller.abort(new Error('The worker was force-closed'));
      // Their writes are refused from now on; wait until their code has returned.
      await Promise.all(current.map(({ settled }) => settled));
    }
    // Not BullMQ's forced close, even when forced: a fetch already under way when the worker paused can
    // still hand it a job, which `processJob` gives back at once; BullMQ's forced close would not wait for
    // that and close the connection under it, leaving the job active under this worker's lock until the
    // stalled check (lockDurationMs) frees it. Our own runs have returned above, so this waits only for
    // those hand-backs.
    await this.worker.close(false);
    await Promise.all([this.producer?.close(), this.limits.close(), this.stopRepair?.()]);
  }

  // SIGTERM/SIGINT: close, and exit once the current runs finished or `shutdownTimeoutMs` passed.
  private readonly onSignal = () => {
    const timeout = setTimeout(() => process.exit(1), this.options.shutdownTimeoutMs ?? 30_000);
    timeout.unref();
    this.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
}
