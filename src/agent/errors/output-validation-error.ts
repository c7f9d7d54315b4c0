import { SvcError } from '../../transport/errors.js';
import type { RunState } from '../run-state.js';
import { defineHidden } from './attach-run-state.js';

/** The final answer was not JSON matching the agent's `output` schema, even after one corrective turn. */
export class OutputValidationError extends SvcError {
  /** The model's raw answer text. */
  readonly text: string;
  /** What was wrong, one `path: message` line per problem. */
  readonly issues: string[];
  /** The state of the run, to inspect or continue (non-enumerable). */
  declare readonly state: RunState;

  constructor(options: { text: string; issues: string[]; state: RunState; cause?: unknown }) {
    super(`The model's answer does not match the output schema: ${options.issues.join('; ')}`, {
      cause: options.cause,
    });
    this.text = options.text;
    this.issues = options.issues;
    defineHidden(this, 'state', options.state);
  }
}
