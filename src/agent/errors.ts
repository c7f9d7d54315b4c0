import { ConfigurationError, ModelBehaviorError, RuntimeConditionError, UserError } from '../core/errors.js';
import type { RunResult } from './run-result.js';
import type { RunState } from './run-state.js';

// Every error a run fails with carries the run's state (and, for a stored run, its id), so a caller
// resumes it with `agent.run(error.state)`. Declared on `SvcError` from here, the layer that knows runs,
// so `error.state` is typed wherever an `APIError` or any svc-agents error is caught.
declare module '../core/errors.js' {
  interface SvcError {
    /** The run's state when a run failed with this error (non-enumerable): `agent.run(error.state)` resumes it. */
    readonly state?: RunState | undefined;
    /** The id of the stored run that failed with this error, when the run had a store (non-enumerable). */
    readonly runId?: string | undefined;
  }
}

// The agent layer's errors, in one module. By family: the caller's mistakes (AgentOptionsError,
// ToolApprovalError, RunStateError), the model's (OutputValidationError), and runtime conditions of a run
// (MaxTurnsExceededError, GuardrailTripwireError, ContextWindowExceededError, RunConflictError).

/** An `Agent` (or run) option breaks a rule; raised before any request (a `ConfigurationError`). */
export class AgentOptionsError extends ConfigurationError {}

/** An approval decision about a call the run is not waiting for, or a rejected call (told to the model). */
export class ToolApprovalError extends UserError {
  /** The call concerned. */
  readonly toolCallId: string;

  constructor(options: { toolCallId: string; message: string }) {
    super(options.message);
    this.toolCallId = options.toolCallId;
  }
}

/** A serialised run state that cannot be read back (unknown `$schemaVersion`, bad shape, tools the agent lacks). */
export class RunStateError extends UserError {}

/** The final answer was not JSON matching the agent's `output` schema, even after one corrective turn. */
export class OutputValidationError extends ModelBehaviorError {
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

/** The run made `maxTurns` model requests and the last answer still asked for tools. */
export class MaxTurnsExceededError extends RuntimeConditionError {
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

/** A guardrail's tripwire stopped the run; `info` is what the guardrail reported, `state` the run so far. */
export class GuardrailTripwireError extends RuntimeConditionError {
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

/**
 * The request cannot be made to fit the context window: what must stay (instructions, tool definitions,
 * the current turn, with oversized tool results already cut) is over the budget by itself.
 */
export class ContextWindowExceededError extends RuntimeConditionError {
  /** Input tokens of what had to stay. */
  readonly tokens: number;
  /** Input tokens allowed. */
  readonly budget: number;

  constructor(options: { tokens: number; budget: number; what: string }) {
    super(
      `contextWindow: ${options.what} take ${options.tokens} tokens, over the budget of ${options.budget} input tokens; raise contextWindow.maxInputTokens or shorten them`,
    );
    this.tokens = options.tokens;
    this.budget = options.budget;
  }
}

/** A stored run changed under us: another process resumed or updated it first (optimistic concurrency). */
export class RunConflictError extends RuntimeConditionError {
  /** The run concerned. */
  override readonly runId: string;
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

/** Gives any error a non-enumerable `state`, so `agent.run(error.state)` resumes the failed run. */
export function attachRunState<E>(error: E, state: RunState): E {
  if (typeof error === 'object' && error !== null && Object.isExtensible(error)) {
    defineHidden(error, 'state', state);
  }
  return error;
}

/** Gives a stored run's error a non-enumerable `runId`: resuming its `state` continues that record. */
export function attachRunId<E>(error: E, runId: string): E {
  // An error naming a run of its own (a conflict, an unreadable record) keeps it.
  if (
    typeof error === 'object' &&
    error !== null &&
    Object.isExtensible(error) &&
    !Object.hasOwn(error, 'runId')
  ) {
    defineHidden(error, 'runId', runId);
  }
  return error;
}

/**
 * Sets a non-enumerable property, so `JSON.stringify(error)` and loggers skip it (a run state may be
 * large and holds the user's conversation) while `error.state` still reads it.
 */
function defineHidden(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: false, configurable: true, writable: true });
}
