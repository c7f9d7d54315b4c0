import { SvcError } from '../../transport/errors.js';
import { attachRunState } from '../errors/attach-run-state.js';
import type { RunState } from '../run-state.js';

/** A guardrail's tripwire stopped the run; `info` is what the guardrail reported, `state` the run so far. */
export class GuardrailTripwireError extends SvcError {
  /** Name of the guardrail that tripped. */
  readonly guardrail: string;
  /** Whether it checked the input or the final output. */
  readonly stage: 'input' | 'output';
  /** What the guardrail reported (its agent's output, the zod issues, or the function's `info`). */
  readonly info: unknown;
  /** The guardrail's one-line reason, if it gave one. */
  readonly reason: string | undefined;
  /** The run as it was when the guardrail tripped (non-enumerable). */
  declare readonly state: RunState;

  constructor(options: {
    guardrail: string;
    stage: 'input' | 'output';
    info: unknown;
    reason?: string | undefined;
    state: RunState;
  }) {
    const reason = options.reason ? `: ${options.reason}` : '';
    super(`Guardrail ${options.guardrail} tripped on the ${options.stage}${reason}`);
    this.guardrail = options.guardrail;
    this.stage = options.stage;
    this.info = options.info;
    this.reason = options.reason;
    attachRunState(this, options.state);
  }
}
