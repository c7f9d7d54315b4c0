import { RuntimeConditionError } from '../core/errors.js';

/**
 * The queue's backend (Redis or PostgreSQL) did not accept a job in time: nothing is lost, the run's
 * record is stored and enqueueing the same `runId` again (or the workers' stranded-run check) queues it.
 */
export class QueueUnavailableError extends RuntimeConditionError {
  /** A connection problem: trying again later may succeed. */
  readonly transient = true;
  /** The run that was being queued. */
  override readonly runId: string;

  constructor(options: { runId: string; operation: string; timeoutMs?: number; cause?: unknown }) {
    const why =
      options.timeoutMs !== undefined
        ? `the queue did not answer within ${options.timeoutMs} ms`
        : `the queue is unreachable${options.cause instanceof Error ? ` (${options.cause.message})` : ''}`;
    super(
      `Could not ${options.operation} run "${options.runId}": ${why}; its record is stored, enqueue it again with the same runId`,
      { cause: options.cause },
    );
    this.runId = options.runId;
  }
}

/** A force-closed worker's run tried to write to the store: it is left to another worker instead. */
export class WorkerClosedError extends RuntimeConditionError {
  /** Not a connection problem: this worker is gone for good. */
  readonly transient = false;

  constructor() {
    super('The worker was force-closed: its runs are left to other workers and write nothing more');
  }
}

/**
 * A run was stopped (`queue.stop`): the abort reason of a running run, and the `error` text its stored
 * record ends with (status `failed`, the status the agent gives an aborted run).
 */
export class RunStoppedError extends RuntimeConditionError {
  /** Not a connection problem: the run is over. */
  readonly transient = false;
  /** The reason given to `queue.stop`, if any. */
  readonly reason: string | undefined;

  constructor(reason?: string) {
    super(reason ? `The run was stopped: ${reason}` : 'The run was stopped');
    this.reason = reason;
  }
}

/**
 * A worker on the PostgreSQL queue refused to start: its clock differs from the database's by more than
 * the queue tolerates. BullMQ's PostgreSQL backend times job locks and the stalled-job check by each
 * worker's own clock, so a worker ahead takes live runs from healthy workers and one behind keeps dead
 * workers' runs from being taken over. Fix the machine's clock (NTP) and start it again.
 */
export class WorkerClockSkewError extends RuntimeConditionError {
  /** Not a connection problem: the clock stays wrong until it is fixed. */
  readonly transient = false;
  /** This process's clock minus the database's, in ms (positive: ahead). */
  readonly skewMs: number;
  /** The largest difference allowed, in ms (a sixth of `lockDurationMs`). */
  readonly toleranceMs: number;

  constructor(options: { skewMs: number; toleranceMs: number }) {
    const way = options.skewMs > 0 ? 'ahead of' : 'behind';
    super(
      `This worker's clock is ${Math.abs(Math.round(options.skewMs))} ms ${way} the PostgreSQL queue's (at most ${options.toleranceMs} ms are allowed: job locks and the stalled-run check are timed by each worker's clock); sync the clock (NTP) and start the worker again`,
    );
    this.skewMs = options.skewMs;
    this.toleranceMs = options.toleranceMs;
  }
}

/**
 * A worker found a run's record at a version below one it had written: the store went back in time (a
 * Redis restored from an older snapshot, a lagging replica promoted). The run is stopped (`failed` with
 * this error) rather than resumed from the older checkpoint, which would run again the tool calls that
 * finished since. Check what those calls did, then resume the run by hand if it should go on.
 */
export class StoreRewoundError extends RuntimeConditionError {
  /** Not a connection problem: the lost writes do not come back. */
  readonly transient = false;
  /** The run. */
  override readonly runId: string;
  /** The version the store holds now. */
  readonly version: number;
  /** The highest version the worker had written. */
  readonly highest: number;

  constructor(options: { runId: string; version: number; highest: number }) {
    super(
      `The store went back in time: run "${options.runId}" is at version ${options.version}, this worker had written version ${options.highest}; the run is stopped so that no tool call finished since runs again`,
    );
    this.runId = options.runId;
    this.version = options.version;
    this.highest = options.highest;
  }
}

/** `queue.waitUntilFinished` gave up: the run had not ended within `timeoutMs` (it goes on; wait again). */
export class RunWaitTimeoutError extends RuntimeConditionError {
  /** Waiting again later may see it end. */
  readonly transient = true;
  /** The run waited for. */
  override readonly runId: string;
  /** How long was waited. */
  readonly timeoutMs: number;
  /** The run's status when the wait gave up. */
  readonly status: string;

  constructor(options: { runId: string; timeoutMs: number; status: string }) {
    super(`Run "${options.runId}" did not finish within ${options.timeoutMs} ms (status: ${options.status})`);
    this.runId = options.runId;
    this.timeoutMs = options.timeoutMs;
    this.status = options.status;
  }
}

/**
 * The queue's former event bus did not answer within its bound. Kept so code that checks for it still
 * compiles.
 * @deprecated Never thrown: `queue.events` reads the store's run event log, whose failures are the
 * store's errors (`StoreUnavailableError`), and a follower retries them itself.
 */
export class EventBusUnavailableError extends RuntimeConditionError {
  /** A connection problem: trying again later may succeed. */
  readonly transient = true;
  /** The run whose events were being sent or followed. */
  override readonly runId: string;

  constructor(options: {
    runId: string;
    operation: 'publish' | 'subscribe';
    timeoutMs: number;
    cause?: unknown;
  }) {
    super(
      `Could not ${options.operation} the events of run "${options.runId}": the queue's event bus did not answer within ${options.timeoutMs} ms or is unreachable`,
      { cause: options.cause },
    );
    this.runId = options.runId;
  }
}
