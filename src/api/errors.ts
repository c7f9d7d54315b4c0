import { BadRequestError, ConfigurationError, RuntimeConditionError } from '../core/errors.js';
import type { FileObject } from './types/files.js';

// The API layer's errors, in the families of `core/errors.ts`.

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

/** The service error type for a whole request: `unsupported_content_type` only when every issue is one. */
function codeOf(issues: readonly RequestValidationIssue[]): RequestValidationCode {
  return issues.length > 0 && issues.every((issue) => issue.code === 'unsupported_content_type')
    ? 'unsupported_content_type'
    : 'request_params_invalid';
}

/**
 * The caller's request breaks a rule of the service, found before any network call. The message lists one
 * `path: rule` line per issue. It is the 400 the service would have answered, so it is a
 * {@link BadRequestError} (`status` 400, `type` = `code`, no `requestId`): code written for openai-node's
 * 400s catches it whether the rule was checked here or by the service.
 */
export class RequestValidationError extends BadRequestError {
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
    const code = codeOf(issues);
    super(issues.map((issue) => `${issue.path}: ${issue.message}`).join('\n'), { type: code, cause });
    this.operation = operation;
    this.issues = issues;
    this.code = code;
  }
}

/**
 * A message-part helper got input it cannot turn into a part the service accepts (format, scheme, file):
 * bad input, so a `ConfigurationError` whose `field` is the helper, e.g. `imagePart`.
 */
export class PartInputError extends ConfigurationError {
  /** Which helper refused the input, e.g. `imagePart` (the same as `field`). */
  get helper(): string {
    return this.field;
  }
}

/** `files.waitUntilReady` gave up: the file's parsing failed, or it was not ready in time. */
export class FileProcessingError extends RuntimeConditionError {
  /** The file being waited for. */
  readonly fileId: string;
  /** `failed`: the service reported a failure status; `timeout`: still not `success` when time ran out. */
  readonly reason: 'failed' | 'timeout';
  /** The last file object the service returned, if any. */
  readonly file: FileObject | undefined;

  constructor(fileId: string, reason: 'failed' | 'timeout', file: FileObject | undefined, detail: string) {
    super(`File ${fileId} is not ready: ${detail}`);
    this.fileId = fileId;
    this.reason = reason;
    this.file = file;
  }
}
