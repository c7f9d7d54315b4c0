import { SvcError } from '../../transport/errors.js';
import type { RunResult } from '../run-result.js';
import type { RunState } from '../run-state.js';
import { defineHidden } from './attach-run-state.js';

/** The run made `maxTurns` model requests and the last answer still asked for tools. */
export class MaxTurnsExceededError extends SvcError {
  /** The turn limit that was hit. */
  readonly maxTurns: number;
  /** The partial result (non-enumerable, so logging the error stays small). */
  declare readonly result: RunResult<unknown>;
  /** The state to continue from with `agent.run(error.state, { maxTurns })` (non-enumerable). */
  declare readonly state: RunState;

  constructor(options: { maxTurns: number; result: RunResult<unknown>; state: RunState }) {
    super(
      `The run reached its limit of ${options.maxTurns} turns while the model still asked for tools; ` +
        'error.result holds the partial result and error.state resumes it.',
    );
    this.maxTurns = options.maxTurns;
    defineHidden(this, 'result', options.result);
    defineHidden(this, 'state', options.state);
  }
}
