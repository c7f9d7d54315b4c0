import { SvcError } from '../../transport/errors.js';

/** An approval decision about a call the run is not waiting for, or a rejected call (told to the model). */
export class ToolApprovalError extends SvcError {
  /** The call concerned. */
  readonly toolCallId: string;

  constructor(options: { toolCallId: string; message: string }) {
    super(options.message);
    this.toolCallId = options.toolCallId;
  }
}
