import { ModelBehaviorError, UserError } from '../core/errors.js';

// The CLI's errors, in the families of `core/errors.ts`.

/** A mistake on the command line (unknown flag, missing argument); printed as one line, exit code 2. */
export class CliUsageError extends UserError {
  constructor(
    message: string,
    /** The command whose `--help` explains the usage, e.g. `kb create`. */
    readonly command?: string,
  ) {
    super(message);
  }
}

/** An expression the demo calculator cannot compute (the model wrote it); `position` is the 0-based offset of the problem. */
export class ArithmeticError extends ModelBehaviorError {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}
