import { SvcError } from '../../transport/errors/svc-error.js';

/** One problem found in a tool call's arguments; `path` is like `items[0].name`, empty for the root. */
export interface ToolArgumentIssue {
  path: string;
  message: string;
}

/**
 * The model called a tool with arguments that are not JSON or break its schema (the model's mistake).
 * The message is what the model sees: `Invalid arguments for get_weather: city: expected string, got number`.
 */
export class InvalidToolArgumentsError extends SvcError {
  /** Name of the tool that was called. */
  readonly toolName: string;
  /** The raw `function.arguments` text the model sent. */
  readonly argumentsText: string;
  /** Every problem found, in schema order. */
  readonly issues: ToolArgumentIssue[];

  constructor(options: {
    toolName: string;
    argumentsText: string;
    issues: ToolArgumentIssue[];
    cause?: unknown;
  }) {
    const details = options.issues
      .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
      .join('; ');
    super(`Invalid arguments for ${options.toolName}: ${details}`, { cause: options.cause });
    this.toolName = options.toolName;
    this.argumentsText = options.argumentsText;
    this.issues = options.issues;
  }
}
