import { SvcError } from '../../transport/errors/svc-error.js';

/** A tool's `execute` threw; the message is the model-visible `Error in <tool>: <message>`, the original is `cause`. */
export class ToolExecutionError extends SvcError {
  /** Name of the tool that failed. */
  readonly toolName: string;
  /** Id of the tool call that failed. */
  readonly toolCallId: string;

  constructor(options: { toolName: string; toolCallId: string; message: string; cause?: unknown }) {
    super(`Error in ${options.toolName}: ${options.message}`, { cause: options.cause });
    this.toolName = options.toolName;
    this.toolCallId = options.toolCallId;
  }
}
