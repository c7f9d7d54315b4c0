import { SvcError } from '../../transport/errors.js';

/** An `Agent` (or run) option breaks a rule; raised before any request. */
export class AgentOptionsError extends SvcError {
  /** The option concerned, e.g. `maxTurns`. */
  readonly field: string;
  /** The rule it breaks. */
  readonly rule: string;

  constructor(options: { field: string; rule: string }) {
    super(`${options.field}: ${options.rule}`);
    this.field = options.field;
    this.rule = options.rule;
  }
}
