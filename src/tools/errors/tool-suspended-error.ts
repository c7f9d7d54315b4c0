import { SvcError } from '../../transport/errors/svc-error.js';

/**
 * Thrown by a tool whose work waits for a human (an agent used as a tool paused for an approval). The call
 * is then not recorded as done: it stays pending, and runs again when the run resumes.
 */
export class ToolSuspendedError extends SvcError {
  /** Name of the suspended tool. */
  readonly toolName: string;

  constructor(options: { toolName: string; reason: string }) {
    super(`Tool ${options.toolName} is waiting: ${options.reason}`);
    this.toolName = options.toolName;
  }
}
