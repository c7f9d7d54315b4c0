import { SvcError } from '../../transport/errors/svc-error.js';

/** A tool call ran longer than its `timeoutMs`; its signal was aborted with this error as the reason. */
export class ToolTimeoutError extends SvcError {
  /** Name of the tool that timed out. */
  readonly toolName: string;
  /** Id of the tool call that timed out. */
  readonly toolCallId: string;
  /** The limit that was exceeded, in milliseconds. */
  readonly timeoutMs: number;

  constructor(options: { toolName: string; toolCallId: string; timeoutMs: number }) {
    super(`Tool ${options.toolName} timed out after ${options.timeoutMs} ms`);
    this.toolName = options.toolName;
    this.toolCallId = options.toolCallId;
    this.timeoutMs = options.timeoutMs;
  }
}
