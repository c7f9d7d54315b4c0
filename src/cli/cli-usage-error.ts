/** A mistake on the command line (unknown flag, missing argument); printed as one line, exit code 2. */
export class CliUsageError extends Error {
  constructor(
    message: string,
    /** The command whose `--help` explains the usage, e.g. `kb create`. */
    readonly command?: string,
  ) {
    super(message);
    this.name = 'CliUsageError';
  }
}
