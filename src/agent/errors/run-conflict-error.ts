import { SvcError } from '../../transport/errors.js';

/** A stored run changed under us: another process resumed or updated it first (optimistic concurrency). */
export class RunConflictError extends SvcError {
  /** The run concerned. */
  readonly runId: string;
  /** The version this process expected (`undefined` when creating). */
  readonly expectedVersion: number | undefined;

  constructor(options: { runId: string; expectedVersion?: number; message?: string }) {
    super(
      options.message ??
        (options.expectedVersion === undefined
          ? `Run "${options.runId}" already exists`
          : `Run "${options.runId}" is no longer at version ${options.expectedVersion}: another process updated it`),
    );
    this.runId = options.runId;
    this.expectedVersion = options.expectedVersion;
  }
}
