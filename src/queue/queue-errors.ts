import { RuntimeConditionError } from '../transport/errors.js';

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
