import { SvcError } from '../../transport/errors/svc-error.js';

/**
 * Error type the service would answer for a broken rule: plan-channel content rules are
 * `unsupported_content_type`, every other rule `request_params_invalid`.
 */
export type RequestValidationCode = 'request_params_invalid' | 'unsupported_content_type';

/** One broken rule of a request: `path` in `a.b[0].c` notation and a human `message` naming the rule. */
export interface RequestValidationIssue {
  /** Where the rule is broken, e.g. `messages[2].tool_call_id`; `request` for the whole body. */
  path: string;
  /** The rule, e.g. `required for role "tool"`. */
  message: string;
  /** The service error type this issue corresponds to. */
  code: RequestValidationCode;
}

/** Options of {@link RequestValidationError}. */
export interface RequestValidationErrorOptions {
  /** The operation whose request broke the rules, e.g. `chat.completions.create`. */
  operation: string;
  /** Every broken rule, at least one. */
  issues: RequestValidationIssue[];
  /** The underlying validation error, if any. */
  cause?: unknown;
}

/**
 * The caller's request breaks a rule of the service, found before any network call.
 * The message lists one `path: rule` line per issue.
 */
export class RequestValidationError extends SvcError {
  /** The operation whose request broke the rules, e.g. `chat.completions.create`. */
  readonly operation: string;
  /** Every broken rule, in the order found. */
  readonly issues: RequestValidationIssue[];
  /**
   * The service error type for the whole request: `unsupported_content_type` only when every issue is a
   * plan-channel content rule, since the service checks plain parameters first.
   */
  readonly code: RequestValidationCode;

  constructor({ operation, issues, cause }: RequestValidationErrorOptions) {
    super(
      issues.map((issue) => `${issue.path}: ${issue.message}`).join('\n'),
      cause === undefined ? undefined : { cause },
    );
    this.operation = operation;
    this.issues = issues;
    this.code =
      issues.length > 0 && issues.every((issue) => issue.code === 'unsupported_content_type')
        ? 'unsupported_content_type'
        : 'request_params_invalid';
  }
}
