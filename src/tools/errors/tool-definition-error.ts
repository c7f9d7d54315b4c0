import { SvcError } from '../../transport/errors/svc-error.js';

/** A tool was defined wrongly (the caller's mistake): bad name, non-object parameters, missing description, duplicates. */
export class ToolDefinitionError extends SvcError {
  /** Name of the offending tool, as given (may itself be the invalid part). */
  readonly toolName: string;
  /** The rule that was broken, without the tool name. */
  readonly rule: string;

  constructor(options: { toolName: string; rule: string; cause?: unknown }) {
    super(`Invalid tool "${options.toolName}": ${options.rule}`, { cause: options.cause });
    this.toolName = options.toolName;
    this.rule = options.rule;
  }
}
